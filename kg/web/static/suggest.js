// The home page's search box, as the reader types: the first records that match (from
// /records.json, without its facets), and a link to all of them. Without JavaScript the
// box is a plain form leading to the same results. From the box, the down arrow moves into
// the suggestions (up and down arrows move among them, Escape goes back to the box).
"use strict";

(function () {
  var input = document.getElementById("home-q");
  if (!input || !window.fetch) { return; }
  var list = document.createElement("ul");
  list.id = "home-suggestions";
  list.className = "suggestions";
  list.setAttribute("aria-label", "Records matching what is typed");
  list.setAttribute("aria-live", "polite");
  input.form.appendChild(list);
  var timer = null;
  var asked = "";

  function show(query, data) {
    if (query !== asked) { return; }  // an older answer, overtaken by typing
    list.textContent = "";
    data.rows.forEach(function (row) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = "/record/" + encodeURIComponent(row.id);
      link.textContent = row.title;
      item.appendChild(link);
      var value = document.createElement("span");
      value.className = "n";
      value.textContent = " " + (row.value_note || row.printed_value || "");
      item.appendChild(value);
      list.appendChild(item);
    });
    var all = document.createElement("li");
    var more = document.createElement("a");
    more.href = "/records?q=" + encodeURIComponent(query);
    more.textContent = data.total ? "All " + data.total.toLocaleString("en") + " matching records"
      : "No record matches: search anyway";
    all.appendChild(more);
    list.appendChild(all);
  }

  function links() { return Array.prototype.slice.call(list.querySelectorAll("a")); }

  input.addEventListener("keydown", function (event) {
    var found = links();
    if (event.key === "ArrowDown" && found.length) { event.preventDefault(); found[0].focus(); }
  });

  list.addEventListener("keydown", function (event) {
    var found = links();
    var at = found.indexOf(document.activeElement);
    if (at < 0) { return; }
    if (event.key === "ArrowDown" && at + 1 < found.length) {
      event.preventDefault(); found[at + 1].focus();
    } else if (event.key === "ArrowUp") {
      event.preventDefault(); (at > 0 ? found[at - 1] : input).focus();
    } else if (event.key === "Escape") {
      event.preventDefault(); list.textContent = ""; input.focus();
    }
  });

  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      var query = input.value.trim();
      asked = query;
      if (query.length < 2) { list.textContent = ""; return; }
      fetch("/records.json?facets=none&limit=8&q=" + encodeURIComponent(query),
            { headers: { Accept: "application/json" } })
        .then(function (answer) { return answer.ok ? answer.json() : null; })
        .then(function (data) { if (data) { show(query, data); } })
        .catch(function () { list.textContent = ""; });
    }, 150);
  });
})();
