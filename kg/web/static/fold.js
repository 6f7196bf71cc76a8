// On a narrow screen the index's filters start folded behind their button, so the
// records come first; without JavaScript they stay open (the page works the same).
(function () {
  var fold = document.querySelector("details.filters");
  if (fold && window.matchMedia("(max-width: 40rem)").matches) {
    fold.removeAttribute("open");
  }
})();
