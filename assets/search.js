/* The search page: the sharded index (window.SEARCH_SHARDS, search/manifest.js), of which
   SearchTransport (search-transport.js) loads what a query needs and makes a lunr.js index, queried
   through SearchCore (search-core.js); facets come from the manifest, and only the shown results'
   records are loaded. Works from file:// and under any sub-path: result URLs and the index's files are
   relative to the site root, where search.html lives. Data is inserted as text (textContent), never as HTML.

   The whole search lives in the URL: search.html?q=…&venue=…&year=…&track=…&status=…&tag=…&sort=year&page=2
   (a facet may be given several times: its values are alternatives; different facets must all hold).
   Facets count the current results: a value's count is how many results it would show with the other
   facets' choices kept; facets without a query list every paper they hold, in the site's order. Results are
   shown PER_PAGE at a time. */
(function () {
  "use strict";
  var _ = window.siteWords;  // page words in the site's language (assets/words.js)
  var PER_PAGE = 20;
  var SHORT_FACET = 8;
  var STATUS_ORDER = ["to-read", "reading", "read"];
  var STATUS_LABEL = { "to-read": _("to-read"), "reading": _("reading"), "read": _("read") };
  var FACETS = [
    { key: "venue", label: _("Venue") }, { key: "year", label: _("Year") }, { key: "track", label: _("Track") },
    { key: "status", label: _("Reading status"), notes: true }, { key: "tag", label: _("Tag"), notes: true }
  ];
  var core = window.SearchCore;
  var form = document.getElementById("search-page-form");
  var input = document.getElementById("search-input");
  var sortSelect = document.getElementById("search-sort");
  var results = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  var facetBox = document.getElementById("search-facets");
  var narrow = document.getElementById("search-narrow");
  var narrowLabel = narrow.querySelector("summary");
  var pager = document.getElementById("search-pages");
  var header = document.getElementById("site-search");
  var engine = window.SearchTransport.shards(lunr, window.SEARCH_SHARDS, window.SearchTransport.scriptLoader(""));
  var notes = readNotes();
  var facets = FACETS.filter(function (f) { return !f.notes || Object.keys(notes).length > 0; });
  var expanded = Object.create(null);   /* facet key → its long list shown whole */
  var facetIds = Object.create(null);   /* facet key → Map(value → element id), stable across renders */
  var state = readState(window.location.search);

  function readNotes() {
    var out = Object.create(null), node = document.getElementById("search-notes");
    try {
      JSON.parse(node ? node.textContent : "[]").forEach(function (n) { out[n[0]] = { status: n[1], tags: n[2] || [] }; });
    } catch (e) { /* no notes */ }
    return out;
  }

  var el = window.siteElement;  // (assets/words.js)

  var appendMarked = core.appendMarked;  // text with the query's words in <mark>, as text nodes

  /* {q, sel: {facet: [value...]}, sort, page} of a URL's query string. */
  function readState(search) {
    var params = new URLSearchParams(search), sel = {};
    facets.forEach(function (f) { sel[f.key] = params.getAll(f.key).filter(Boolean); });
    var page = parseInt(params.get("page"), 10);
    return { q: params.get("q") || "", sel: sel, sort: params.get("sort") === "year" ? "year" : "",
             page: page > 0 ? page : 1 };
  }

  function stateQuery(st, page) {
    var params = new URLSearchParams();
    if (st.q) params.set("q", st.q);
    facets.forEach(function (f) { st.sel[f.key].forEach(function (v) { params.append(f.key, v); }); });
    if (st.sort) params.set("sort", st.sort);
    if (page > 1) params.set("page", String(page));
    var text = params.toString();
    return text ? "?" + text : "";
  }

  /* The values a result holds for facet key (facts: its venue, year and track, from the manifest). */
  function valuesOf(key, ref, facts) {
    var note = notes[ref];
    if (key === "venue") return [facts.venue];
    if (key === "year") return facts.year === undefined || facts.year === null ? [] : [String(facts.year)];
    if (key === "track") return facts.track ? [facts.track] : [];
    if (key === "status") return note && note.status ? [note.status] : [];
    return note ? note.tags : [];
  }

  /* Do a result's facet values (valuesFor) hold one of the values chosen in sel for every facet but except? */
  function passes(values, sel, except) {
    return facets.every(function (f) {
      var chosen = sel[f.key];
      return f.key === except || !chosen.length || values[f.key].some(function (v) { return chosen.indexOf(v) >= 0; });
    });
  }

  /* The search of state st, a Promise of {groups, excludedOnly, total (results before facets), shown:
     [{ref, year, order, values}...] (sorted as st.sort says), counts: {facet: Map(value → count)}, failed
     (the index's files could not be loaded)}. Never rejects. */
  function compute(st) {
    if (!st.q.trim() && chosenCount(st)) return Promise.resolve(counted(st, everyPaper()));
    return engine.search(core, st.q).then(null, function (e) {
      if (window.console) console.error("search failed for", st.q, e);
      return { groups: [], results: [], excludedOnly: false, failed: true };
    }).then(function (found) { return counted(st, found); });
  }

  /* The facets alone are a query: every paper, in the site's order (the manifest's), for them to narrow. */
  function everyPaper() {
    var all = [];
    for (var d = 0; d < window.SEARCH_SHARDS.count; d++) all.push({ ref: d.toString(36) });
    return { groups: [], results: all, excludedOnly: false, everyPaper: true };
  }

  function chosenCount(st) {
    return facets.reduce(function (n, f) { return n + st.sel[f.key].length; }, 0);
  }

  /* The facet values of ref: {facet key: [value...]}, shared by the results with the same facts and no note. */
  function valuesFor(ref, facts, shared) {
    var values = !notes[ref] && shared.get(facts);
    if (values) return values;
    values = {};
    facets.forEach(function (f) { values[f.key] = valuesOf(f.key, ref, facts); });
    if (!notes[ref]) shared.set(facts, values);
    return values;
  }

  function counted(st, found) {
    var shared = new Map(), none = {};
    var items = found.results.map(function (r, i) {
      var facts = engine.facts(r.ref) || none;
      return { ref: r.ref, year: facts.year || 0, order: i, values: valuesFor(r.ref, facts, shared) };
    });
    var chosen = facets.some(function (f) { return st.sel[f.key].length > 0; }), counts = {}, alike = new Map();
    items.forEach(function (it) { alike.set(it.values, (alike.get(it.values) || 0) + 1); });
    facets.forEach(function (f) {
      var c = new Map();
      alike.forEach(function (n, values) {  /* results sharing their values counted at once */
        if (!chosen || passes(values, st.sel, f.key)) values[f.key].forEach(function (v) { c.set(v, (c.get(v) || 0) + n); });
      });
      counts[f.key] = c;
    });
    var shown = chosen ? items.filter(function (it) { return passes(it.values, st.sel, null); }) : items;
    if (st.sort === "year") shown.sort(function (a, b) { return (b.year - a.year) || (a.order - b.order); });
    return { groups: found.groups, excludedOnly: found.excludedOnly, total: items.length, shown: shown, counts: counts,
             failed: found.failed, everyPaper: found.everyPaper };
  }

  function resultItem(it, groups) {
    var doc = engine.record(it.ref), item = el("li", "search-result");
    item.setAttribute("data-ref", it.ref);
    var a = appendMarked(el("a", "result-title"), doc.title, groups);
    a.href = doc.url;
    item.appendChild(a);
    if (doc.authors && doc.authors.length) item.appendChild(appendMarked(el("div", "meta authors"), authorsText(doc.authors), groups));
    item.appendChild(el("div", "meta venue", doc.venue + (doc.track ? " · " + doc.track : "")));
    if (doc.abstract) item.appendChild(appendMarked(el("p", "snippet"), core.snippet(doc.abstract, groups), groups));
    return item;
  }

  /* A record's authors as a line in the site's language (its last name "et al." when the list says so). */
  function authorsText(authors) {
    return authors.map(function (name, i) {
      return i === authors.length - 1 && name === "et al." ? _("et al.") : name;
    }).join(_(", "));
  }

  function statusText(found, pages) {
    var n = found.shown.length;
    if (!state.q.trim() && !found.everyPaper) return "";
    if (found.failed) return _("Search could not be loaded");
    if (found.excludedOnly) return _("No results: add a word to search for; words with a minus only leave papers out");
    if (!found.groups.length && !found.everyPaper) return _("No results: the query holds only common words or punctuation");
    if (!n) return found.total ? _("No results with these choices (%(total)s without them)", {total: found.total}) : _("No results");
    var text = n === 1 ? _("1 result") : _("%(num)s results", {num: n});
    if (pages > 1) {
      var first = (state.page - 1) * PER_PAGE + 1;
      text += _(", showing %(first)s–%(last)s (page %(page)s of %(pages)s)",
                {first: first, last: Math.min(n, first + PER_PAGE - 1), page: state.page, pages: pages});
    }
    return text;
  }

  function facetValues(f, counts) {
    var chosen = state.sel[f.key], c = counts[f.key], list = [];
    c.forEach(function (n, v) { list.push(v); });
    chosen.forEach(function (v) { if (!c.has(v)) list.push(v); });
    list.sort(function (a, b) {
      if (f.key === "year") return b < a ? -1 : b > a ? 1 : 0;
      if (f.key === "status") return STATUS_ORDER.indexOf(a) - STATUS_ORDER.indexOf(b);
      return ((c.get(b) || 0) - (c.get(a) || 0)) || (a < b ? -1 : a > b ? 1 : 0);
    });
    return list;
  }

  function facetId(key, value) {
    var ids = facetIds[key] || (facetIds[key] = new Map());
    if (!ids.has(value)) ids.set(value, "facet-" + key + "-" + ids.size);
    return ids.get(value);
  }

  function facetGroup(f, counts) {
    var list = facetValues(f, counts), chosen = state.sel[f.key];
    if (!list.length) return null;
    var box = el("fieldset", "facet"), ul = el("ul", "facet-values");
    box.appendChild(el("legend", null, f.label));
    var long = list.length > SHORT_FACET + 2 && !expanded[f.key];
    list.forEach(function (v, i) {
      var on = chosen.indexOf(v) >= 0;
      if (long && i >= SHORT_FACET && !on) return;
      var li = el("li"), label = el("label"), check = el("input");
      check.type = "checkbox";
      check.id = facetId(f.key, v);
      check.checked = on;
      check.setAttribute("data-facet", f.key);
      check.value = v;
      label.htmlFor = check.id;
      label.appendChild(check);
      var text = label.appendChild(el("span", "facet-text", (f.key === "status" ? STATUS_LABEL[v] || v : v) + " "));
      text.appendChild(el("span", "count", "(" + (counts[f.key].get(v) || 0) + ")"));
      li.appendChild(label);
      ul.appendChild(li);
    });
    box.appendChild(ul);
    if (list.length > SHORT_FACET + 2) {
      var more = el("button", "facet-more", expanded[f.key] ? _("Show fewer") : _("Show all %(num)s", {num: list.length}));
      more.type = "button";
      more.id = "facet-more-" + f.key;
      more.setAttribute("data-more", f.key);
      more.setAttribute("aria-expanded", expanded[f.key] ? "true" : "false");
      box.appendChild(more);
    }
    return box;
  }

  function renderFacets(found) {
    var focused = document.activeElement && facetBox.contains(document.activeElement) ? document.activeElement.id : null;
    facetBox.textContent = "";
    if (found.total) {
      facets.forEach(function (f) {
        var group = facetGroup(f, found.counts);
        if (group) facetBox.appendChild(group);
      });
    }
    narrow.hidden = !facetBox.firstChild;
    var chosen = chosenCount(state);
    narrowLabel.textContent = chosen ? _("Narrow the results (%(num)s chosen)", {num: chosen}) : _("Narrow the results");
    var again = focused && document.getElementById(focused);
    if (again) again.focus();
  }

  function pageLink(label, page, current) {
    var a = el("a", null, label);
    a.href = stateQuery(state, page) || "?";
    a.setAttribute("data-page", String(page));
    if (current) a.setAttribute("aria-current", "page");
    return a;
  }

  function renderPager(pages) {
    pager.textContent = "";
    pager.hidden = pages < 2;
    if (pages < 2) return;
    var p = state.page, ul = el("ul");
    function add(node) { var li = el("li"); li.appendChild(node); ul.appendChild(li); }
    if (p > 1) add(pageLink(_("Previous"), p - 1, false));
    for (var n = 1; n <= pages; n++) {
      if (n === 1 || n === pages || Math.abs(n - p) <= 2) {
        var link = pageLink(String(n), n, n === p);
        link.setAttribute("aria-label", _("Page %(num)s", {num: n}));
        add(link);
      } else if (Math.abs(n - p) === 3) add(el("span", "gap", "…"));
    }
    if (p < pages) add(pageLink(_("Next"), p + 1, false));
    pager.appendChild(ul);
  }

  /* Search the box's text, then show the page of results as their records arrive: the first FIRST (one
     round of requests, which a browser sends at once even over HTTP/1.1) with the status and pager, then,
     in a task of their own (the list drawn first: at 100,000 papers the facets' elements took as long as
     the results'), the facets, then the other results, appended; drawn (optional) is called as the first
     results are put in the list. A Promise of the search (compute), once all shown; a search started later
     wins (an earlier one shows nothing more). The list is aria-busy until its page is whole. */
  var FIRST = 6;
  var latest = 0;
  function show(drawn) {
    state.q = input.value;
    state.sort = sortSelect.value;
    var run = ++latest;
    results.setAttribute("aria-busy", "true");
    return compute(state).then(function (found) {
      var pages = Math.max(1, Math.ceil(found.shown.length / PER_PAGE));
      var first = (Math.min(state.page, pages) - 1) * PER_PAGE, page = found.shown.slice(first, first + PER_PAGE);
      return shownWhenLoaded(page.slice(0, FIRST), found, run, function (items) {
        render(found, pages, items);
        if (drawn && items.length) drawn();
      })
        .then(nextTask).then(function () {
          if (run === latest) renderFacets(found);
          return shownWhenLoaded(page.slice(FIRST), found, run, function (items) {
            items.forEach(function (it) { results.appendChild(resultItem(it, found.groups)); });
          });
        }).then(function () {
          if (run === latest) results.removeAttribute("aria-busy");
          return found;
        });
    });
  }

  function nextTask() { return new Promise(function (resolve) { window.setTimeout(resolve, 0); }); }

  /* Load the records of items, then, if run is still the latest search, give them to done (none when some
     could not be loaded, now or before: found.failed is set, and the status says so). */
  function shownWhenLoaded(items, found, run, done) {
    var loaded = found.failed ? Promise.resolve() : engine.records(items.map(function (it) { return it.ref; }));
    return loaded.then(null, function (e) {
      if (window.console) console.error("search records could not be loaded", e);
      found.failed = true;
      if (run === latest) status.textContent = _("Search could not be loaded");
    }).then(function () { if (run === latest) done(found.failed ? [] : items); });
  }

  function render(found, pages, page) {
    state.page = Math.min(state.page, pages);
    results.textContent = "";
    status.textContent = statusText(found, pages);
    results.start = (state.page - 1) * PER_PAGE + 1;
    page.forEach(function (it) { results.appendChild(resultItem(it, found.groups)); });
    renderPager(pages);
  }

  /* The URL keeps the whole search. A step the reader takes (a query sent, a facet, the sort, a page) is a
     new history entry, so Back returns to the search before it. Typing is one step a burst: its first search
     pushes an entry, the next ones replace it, until another step, Back or Forward, or the box losing the
     focus ends the burst (as the address bar's history of a search page keeps one entry per query). */
  function syncUrl(step) {
    var url = window.location.pathname + stateQuery(state, state.page);
    try {
      if (step && url !== window.location.pathname + window.location.search) window.history.pushState(null, "", url);
      else window.history.replaceState(null, "", url);
    } catch (e) { /* some file:// contexts refuse; the URL then keeps the submitted query */ }
  }

  /* While the reader types, the URL follows once typing pauses (URL_PAUSE ms): replacing the history entry
     took some 5 ms a key in Chromium. A step, Back or Forward, leaving the page or choosing a result brings
     it up to date at once. urlPush: the URL waiting is a burst's first (a new entry). */
  var URL_PAUSE = 300, urlTimer = null, urlPush = false;
  function syncUrlNow(step) {
    window.clearTimeout(urlTimer);
    urlTimer = null;
    urlPush = false;
    syncUrl(step);
  }
  function urlLater(push) {
    urlPush = urlPush || push;
    window.clearTimeout(urlTimer);
    urlTimer = window.setTimeout(function () { syncUrlNow(urlPush); }, URL_PAUSE);
  }
  function pendingUrl() { if (urlTimer) syncUrlNow(urlPush); }
  window.addEventListener("pagehide", pendingUrl);
  results.addEventListener("click", pendingUrl, true);

  var timer = null, typing = false;
  function searchBox(drawn) {
    window.clearTimeout(timer);
    timer = null;
    if (header) header.value = input.value;
    return show(drawn);
  }

  /* A step's search (a query sent, a facet, the sort, a page): its own history entry, at once; drawn (optional)
     is called once its first results are in the list. */
  function update(drawn) {
    var shown = searchBox(drawn);
    typing = false;
    syncUrlNow(true);
    return shown;
  }

  /* The search of what was typed: a new entry when it starts a burst of typing, else a replacement. */
  function typed() {
    var starts = !typing, shown = searchBox();
    typing = true;
    urlLater(starts);
    return shown;
  }

  window.addEventListener("popstate", function () {
    window.clearTimeout(urlTimer);
    urlTimer = null;
    urlPush = typing = false;
    state = readState(window.location.search);
    input.value = state.q;
    sortSelect.value = state.sort;
    if (header) header.value = input.value;
    show();
  });

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
    state.page = 1;
    if (!timer) timer = window.setTimeout(typed, 0);
  });
  input.addEventListener("blur", function () { if (!timer) typing = false; });
  input.addEventListener("keydown", function (e) {
    if (e.key === "ArrowDown") {
      e.preventDefault();
      (timer ? typed() : Promise.resolve()).then(function () { pendingUrl(); if (links().length) select(0); });
    }
  });
  results.addEventListener("keydown", function (e) {
    var all = links(), i = all.indexOf(document.activeElement);
    if (i < 0) return;
    if (e.key === "ArrowDown") { e.preventDefault(); select(i + 1); }
    else if (e.key === "ArrowUp") { e.preventDefault(); select(i - 1); }
  });
  form.addEventListener("submit", function (e) { e.preventDefault(); state.page = 1; update(); });
  sortSelect.addEventListener("change", function () { state.page = 1; update(); });
  facetBox.addEventListener("change", function (e) {
    var t = e.target, key = t.getAttribute && t.getAttribute("data-facet");
    if (!key) return;
    var chosen = state.sel[key], at = chosen.indexOf(t.value);
    if (t.checked && at < 0) chosen.push(t.value);
    if (!t.checked && at >= 0) chosen.splice(at, 1);
    state.page = 1;
    update();
  });
  facetBox.addEventListener("click", function (e) {
    var key = e.target.getAttribute && e.target.getAttribute("data-more");
    if (!key) return;
    expanded[key] = !expanded[key];
    show();
  });
  pager.addEventListener("click", function (e) {
    var a = e.target.closest ? e.target.closest("a[data-page]") : null;
    if (!a) return;
    e.preventDefault();
    state.page = parseInt(a.getAttribute("data-page"), 10) || 1;
    update(function () {  /* as soon as the page's first results are drawn, not once all are */
      var top = links()[0];
      if (top) top.focus();
      status.scrollIntoView({ block: "start" });
    });
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target, tag = t && t.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (t && t.isContentEditable)) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    input.focus();
    input.select();
  }, true);

  input.value = state.q;
  sortSelect.value = state.sort;
  /* On a narrow screen the facets start folded (unless the URL chose some), so the results come first. */
  if (window.matchMedia && window.matchMedia("(max-width: 40rem)").matches &&
      !facets.some(function (f) { return state.sel[f.key].length; })) narrow.open = false;
  if (header) header.value = input.value;
  show();

  /* For tests and the recall script: the page's own search, without the DOM. run(query, choices):
     a Promise of the refs shown for query with choices {facet: value or [values]} (optional), in order;
     records(refs): a Promise of their records, in order; show(query): a Promise of the number of
     results, once shown; engine: the sharded index (SearchTransport.shards). */
  window.SiteSearch = {
    engine: engine,
    records: function (refs) {
      return engine.records(refs).then(function () { return refs.map(engine.record); });
    },
    run: function (query, choices) {
      var st = readState("");
      st.q = query;
      Object.keys(choices || {}).forEach(function (k) {
        var v = choices[k];
        if (st.sel[k] && v) st.sel[k] = [].concat(v);
      });
      return compute(st).then(function (found) { return found.shown.map(function (it) { return it.ref; }); });
    },
    show: function (query) {
      input.value = query;
      state.page = 1;
      return show().then(function (found) { return found.shown.length; });
    }
  };
})();
