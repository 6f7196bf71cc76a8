// "Copy BibTeX" on record and source pages: fetch the page's BibTeX and put it on the
// clipboard. A static file, not an inline script, so that a Content-Security-Policy of
// script-src 'self' allows it. Without JavaScript the button stays hidden and the BibTeX
// link beside it still downloads the file.
"use strict";

document.querySelectorAll("button.copy-bibtex").forEach(function (button) {
  var status = button.parentElement.querySelector(".copy-status");
  function say(text) { if (status) { status.textContent = text; } }
  button.hidden = false;
  button.addEventListener("click", function () {
    fetch(button.dataset.href, { headers: { Accept: "application/x-bibtex" } })
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.text();
      })
      .then(function (text) { return navigator.clipboard.writeText(text); })
      .then(function () { say("BibTeX copied"); })
      .catch(function (error) { say("Could not copy: " + error.message); });
  });
});
