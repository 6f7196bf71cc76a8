// The SPARQL page's editor: YASGUI (vendored under static/vendor/yasgui/, MIT) over the
// plain form, which stays the page without JavaScript. Queries go to this server's
// /sparql (its limits apply); autocompletion stays local (no Linked Open Vocabularies,
// no prefix.cc); the canned queries open in the editor as examples. A static file, so that
// the Content-Security-Policy's script-src 'self' allows it.
"use strict";

(function () {
  var data = document.getElementById("kg-sparql-config");
  var form = document.querySelector("form.sparql");
  if (!data || !form || typeof window.Yasgui !== "function") { return; }
  var config = JSON.parse(data.textContent);
  var holder = document.createElement("div");
  holder.id = "yasgui";
  form.parentNode.insertBefore(holder, form);
  form.hidden = true;

  var Yasgui = window.Yasgui;
  // Values as values, as the server's table shows them: YASR's table writes a typed literal
  // as "-1"^^xsd:decimal; here it shows -1, its datatype (or language) on hover.
  var Table = Yasgui.Yasr && Yasgui.Yasr.plugins && Yasgui.Yasr.plugins.table;
  if (Table && Table.prototype.formatLiteral) {
    Table.prototype.formatLiteral = function (binding) {
      var cell = document.createElement("span");
      cell.textContent = binding.value;
      var lang = binding["xml:lang"];
      var type = binding.datatype || "http://www.w3.org/2001/XMLSchema#string";
      cell.title = lang ? "text @" + lang
        : type.replace("http://www.w3.org/2001/XMLSchema#", "xsd:");
      return cell.outerHTML;
    };
  }
  // Local completion only: variables, and prefixes from this registry's list.
  Yasgui.Yasqe.defaults.autocompleters = ["prefixes", "variables"];
  var yasgui = new Yasgui(holder, {
    requestConfig: { endpoint: config.endpoint, method: "POST" },
    copyEndpointOnNewTab: false,
    endpointCatalogueOptions: { getData: function () { return [{ endpoint: config.endpoint }]; } },
    persistenceId: null,
    // The server already ran ?query= and drew its table below: running it again from the
    // URL would ask the store twice for one page view.
    populateFromUrl: false,
    yasqe: { value: config.query, prefixCcApi: config.prefixes },
    yasr: { pluginOrder: ["table", "response"], defaultPlugin: "table" },
  });

  function tab() { return yasgui.getTab(); }
  if (!tab().getQuery().trim()) { tab().setQuery(config.query); }

  // One result view: the server's table of the query it ran, until a query runs in the
  // editor; then the editor's, and the server's goes.
  holder.classList.add("not-run");
  yasgui.on("query", function () {
    holder.classList.remove("not-run");
    var served = document.getElementById("results");
    if (served) { served.hidden = true; }
  });

  // What YASGUI leaves unnamed for assistive technology (axe-core's findings): its
  // editor's input, the endpoint box, the scrolling editor.
  holder.querySelectorAll(".CodeMirror textarea").forEach(function (t) {
    t.setAttribute("aria-label", "SPARQL query");
  });
  holder.querySelectorAll("input.autocomplete").forEach(function (i) {
    i.setAttribute("aria-label", "SPARQL endpoint");
  });
  holder.querySelectorAll(".CodeMirror-scroll").forEach(function (s) {
    s.setAttribute("tabindex", "0");
  });

  document.querySelectorAll("form.canned").forEach(function (canned) {
    var text = config.canned[canned.dataset.query];
    if (!text) { return; }
    var open = document.createElement("button");
    open.type = "button";
    open.className = "open-in-editor";
    open.textContent = "Open in the editor";
    open.addEventListener("click", function () {
      tab().setQuery(text);
      holder.scrollIntoView();
      tab().getYasqe().focus();
    });
    canned.appendChild(open);
  });
})();
