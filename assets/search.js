/* The search page: window.SEARCH_DATA (search-index.js), made into a lunr.js index by
   SearchTransport (search-transport.js) and queried through SearchCore (search-core.js). Works from
   file:// and under any sub-path: result URLs are relative to the site root, where search.html lives.
   Data is inserted as text (textContent), never as HTML. The query and filters live in the URL
   (search.html?q=…&venue=…&track=…). */
(function () {
  "use strict";
  var MAX_SHOWN = 50;
  var data = window.SEARCH_DATA;
  var core = window.SearchCore;
  var form = document.getElementById("search-page-form");
  var input = document.getElementById("search-input");
  var venueSelect = document.getElementById("filter-venue");
  var trackSelect = document.getElementById("filter-track");
  var results = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  var header = document.getElementById("site-search");
  var index = window.SearchTransport.load(lunr, data);
  var record = window.SearchTransport.records(data);

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text) node.textContent = text;
    return node;
  }

  /* Append text to parent with the query's words wrapped in <mark> (text nodes only). */
  function appendMarked(parent, text, groups) {
    core.highlight(text, groups).forEach(function (piece) {
      if (piece[1]) parent.appendChild(el("mark", null, piece[0]));
      else parent.appendChild(document.createTextNode(piece[0]));
    });
    return parent;
  }

  /* Results for query under the current filters: {groups, refs: [ref...]}. Never throws. */
  function run(query, venue, track) {
    var found;
    try {
      found = core.search(lunr, index, query);
    } catch (e) {
      if (window.console) console.error("search failed for", query, e);
      found = { groups: [], results: [] };
    }
    var refs = [];
    found.results.forEach(function (r) {
      if (venue || track) {  /* records are read only when needed: for the filters and the results shown */
        var doc = record(r.ref);
        if (!doc) return;
        if (venue && doc.venue !== venue) return;
        if (track && doc.track !== track) return;
      }
      refs.push(r.ref);
    });
    return { groups: found.groups, refs: refs };
  }

  function syncTrackOptions() {
    var venue = venueSelect.value;
    Array.prototype.forEach.call(trackSelect.options, function (opt) {
      var show = !opt.value || !venue || opt.getAttribute("data-venue") === venue;
      opt.hidden = !show;
      opt.disabled = !show;
    });
    var current = trackSelect.options[trackSelect.selectedIndex];
    if (current && current.disabled) trackSelect.value = "";
  }

  function show() {
    var query = input.value;
    var venue = venueSelect.value, track = trackSelect.value;
    results.textContent = "";
    if (!query.trim()) { status.textContent = ""; return { groups: [], refs: [] }; }
    var found = run(query, venue, track);
    var n = found.refs.length;
    status.textContent = n ? n + " result" + (n === 1 ? "" : "s") + (n > MAX_SHOWN ? ", showing the first " + MAX_SHOWN : "")
      : (found.groups.length ? "No results" : "No results: the query holds only common words or punctuation");
    found.refs.slice(0, MAX_SHOWN).forEach(function (ref) {
      var doc = record(ref);
      var item = el("li", "search-result");
      item.setAttribute("data-ref", ref);
      var a = appendMarked(el("a", "result-title"), doc.title, found.groups);
      a.href = doc.url;
      item.appendChild(a);
      if (doc.authors && doc.authors.length) item.appendChild(appendMarked(el("div", "meta authors"), doc.authors.join(", "), found.groups));
      item.appendChild(el("div", "meta venue", doc.venue + (doc.track ? " · " + doc.track : "")));
      if (doc.snippet) item.appendChild(appendMarked(el("p", "snippet"), doc.snippet, found.groups));
      results.appendChild(item);
    });
    return found;
  }

  function syncUrl() {
    var params = new URLSearchParams();
    if (input.value) params.set("q", input.value);
    if (venueSelect.value) params.set("venue", venueSelect.value);
    if (trackSelect.value) params.set("track", trackSelect.value);
    var search = params.toString();
    try {
      window.history.replaceState(null, "", window.location.pathname + (search ? "?" + search : ""));
    } catch (e) { /* some file:// contexts refuse; the URL then keeps the submitted query */ }
    if (header) header.value = input.value;
  }

  var timer = null;
  function update() {
    window.clearTimeout(timer);
    timer = null;
    show();
    syncUrl();
  }

  function links() { return Array.prototype.slice.call(results.querySelectorAll("a.result-title")); }

  function select(i) {
    var all = links();
    all.forEach(function (a) { a.parentNode.classList.remove("is-selected"); });
    if (i < 0) { input.focus(); return; }
    if (!all.length) return;
    var a = all[Math.min(i, all.length - 1)];
    a.parentNode.classList.add("is-selected");
    a.focus();
  }

  /* Search as you type: one search per task, so a burst of input events (a paste, fast typing)
     costs one search; a search takes a few milliseconds even at 10,000 papers. */
  input.addEventListener("input", function () {
    if (!timer) timer = window.setTimeout(update, 0);
  });
  input.addEventListener("keydown", function (e) {
    if (e.key === "ArrowDown") {
      if (timer) update();
      if (links().length) { e.preventDefault(); select(0); }
    }
  });
  results.addEventListener("keydown", function (e) {
    var all = links(), i = all.indexOf(document.activeElement);
    if (i < 0) return;
    if (e.key === "ArrowDown") { e.preventDefault(); select(i + 1); }
    else if (e.key === "ArrowUp") { e.preventDefault(); select(i - 1); }
  });
  form.addEventListener("submit", function (e) { e.preventDefault(); update(); });
  venueSelect.addEventListener("change", function () { syncTrackOptions(); update(); });
  trackSelect.addEventListener("change", update);
  document.addEventListener("keydown", function (e) {
    if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target, tag = t && t.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (t && t.isContentEditable)) return;
    e.preventDefault();
    input.focus();
    input.select();
  });

  var params = new URLSearchParams(window.location.search);
  input.value = params.get("q") || "";
  venueSelect.value = params.get("venue") || "";
  if (venueSelect.value !== (params.get("venue") || "")) venueSelect.value = "";
  syncTrackOptions();
  trackSelect.value = params.get("track") || "";
  if (trackSelect.selectedIndex < 0 || (trackSelect.options[trackSelect.selectedIndex] || {}).disabled) trackSelect.value = "";
  if (header) header.value = input.value;
  show();

  /* For tests and the recall script: the page's own search, without the DOM. */
  window.SiteSearch = {
    index: index,
    record: record,
    run: function (query, venue, track) { return run(query, venue || "", track || "").refs; },
    show: function (query) { input.value = query; return show().refs.length; }
  };
})();
