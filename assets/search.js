/* Client-side search over the prebuilt Lunr index (window.SEARCH_DATA, from search-index.js).
   Works from file:// and under any sub-path: result URLs are relative to the site root,
   where search.html lives. Data is inserted as text, never as HTML. */
(function () {
  "use strict";
  var data = window.SEARCH_DATA;
  var input = document.getElementById("search-input");
  var results = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  var index = lunr.Index.load(data.index);

  function run(query) {
    try {
      return index.search(query);
    } catch (e) {
      /* Query syntax error: search the words alone. */
      var words = query.replace(/[:~^+\-*]/g, " ").trim();
      return words ? index.search(words) : [];
    }
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text) node.textContent = text;
    return node;
  }

  function show(query) {
    results.textContent = "";
    if (!query.trim()) { status.textContent = ""; return; }
    var hits = run(query);
    status.textContent = hits.length ? hits.length + " result" + (hits.length === 1 ? "" : "s") : "No results";
    hits.slice(0, 100).forEach(function (hit) {
      var doc = data.docs[hit.ref];
      var item = el("li", "search-result");
      var a = el("a", "result-title", doc.title);
      a.href = doc.url;
      item.appendChild(a);
      if (doc.authors.length) item.appendChild(el("div", "meta", doc.authors.join(", ")));
      item.appendChild(el("div", "meta", doc.venue + (doc.track ? " · " + doc.track : "")));
      item.appendChild(el("p", "snippet", doc.snippet));
      results.appendChild(item);
    });
  }

  var query = new URLSearchParams(window.location.search).get("q") || "";
  input.value = query;
  document.getElementById("site-search").value = query;
  show(query);
})();
