/* Results as you type in the header's search box, on every page: the WAI-ARIA combobox pattern
   (https://www.w3.org/WAI/ARIA/apg/patterns/combobox/, list autocomplete): the box keeps the focus,
   the list under it shows the top papers, ↓ ↑ move through them (aria-activedescendant), Enter opens
   the chosen one (or, with none chosen, submits to the search page), Esc closes the list (a second Esc
   clears the box), "/" focuses the box. The last option leads to all results (search.html?q=…).

   Nothing is loaded for search until the box is first focused or typed into: then lunr.js, the
   search index's manifest, search-transport.js, search-core.js (classic scripts, so it works from
   file://) and typeahead.css are added to the page; each query then loads the index shards it needs
   and the records of the results it shows (SearchTransport.shards). Paths are relative to this script's own URL (the site's
   assets folder), so the site works under any sub-path. Record text is inserted as text nodes only. */
(function () {
  "use strict";
  var _ = window.siteWords;  // page words in the site's language (assets/words.js)
  var MAX = 8;
  var input = document.getElementById("site-search");
  if (!input || !input.form) return;
  var form = input.form;
  /* The combobox's list and live region are made here rather than repeated in every page's markup (issue 25,
     the site's size); without JavaScript the field stays a plain search field that submits to the search page. */
  function part(tag, id, attrs) {
    var node = document.getElementById(id) || document.createElement(tag);
    node.id = id;
    Object.keys(attrs).forEach(function (name) { node.setAttribute(name, attrs[name]); });
    return node;
  }
  var popup = part("div", "site-search-popup", {"class": "search-popup", hidden: ""});
  var list = part("ul", "site-search-list", {role: "listbox", "aria-label": _("Papers found")});
  var live = part("span", "site-search-live", {"class": "visually-hidden", role: "status", "aria-live": "polite"});
  popup.appendChild(list);
  form.appendChild(popup);
  form.appendChild(live);
  [["autocomplete", "off"], ["role", "combobox"], ["aria-autocomplete", "list"], ["aria-expanded", "false"],
   ["aria-controls", "site-search-list"]].forEach(function (pair) { input.setAttribute(pair[0], pair[1]); });
  var me = document.currentScript;
  var assets = me && me.src ? me.src.replace(/[^\/]*$/, "") : "assets/";
  var root = assets.replace(/assets\/$/, "");
  var loading = null, engine = null, styled = false, active = -1, timer = null;

  function addScript(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = src;
      s.async = false;  /* run in the order added */
      s.onload = resolve;
      s.onerror = function () { reject(new Error("could not load " + src)); };
      document.head.appendChild(s);
    });
  }

  function addStyle(href) {
    return new Promise(function (resolve) {
      var l = document.createElement("link");
      l.rel = "stylesheet";
      l.href = href;
      l.onload = l.onerror = function () { resolve(); };
      document.head.appendChild(l);
    });
  }

  /* Load the search files once (those the page has already are not loaded again; the search page's
     own index is shared); resolves to {shards (SearchTransport.shards), core}. */
  function load() {
    if (loading) return loading;
    var need = [];
    if (!window.lunr) need.push(assets + "lunr.min.js");
    if (!window.SEARCH_SHARDS) need.push(root + "search/manifest.js");
    if (!window.SearchTransport) need.push(assets + "search-transport.js");
    if (!window.SearchCore) need.push(assets + "search-core.js");
    var style = addStyle(assets + "typeahead.css").then(function () { styled = true; loadingNote(); });
    loading = Promise.all(need.map(addScript).concat([style])).then(function () {
      var T = window.SearchTransport, page = window.SiteSearch;
      engine = { shards: page && page.engine ? page.engine : T.shards(window.lunr, window.SEARCH_SHARDS, T.scriptLoader(root)),
                 core: window.SearchCore };
      return engine;
    });
    loading.catch(function (e) {
      if (live) live.textContent = _("Search could not be loaded");
      if (window.console) console.error(e);
    });
    return loading;
  }

  var el = window.siteElement;  // (assets/words.js)


  function allResultsUrl(q) { return form.action.replace(/[?#].*$/, "") + "?q=" + encodeURIComponent(q); }

  function setActive(i) {
    var options = list.children;
    if (active >= 0 && options[active]) options[active].setAttribute("aria-selected", "false");
    active = i;
    if (i >= 0 && options[i]) {
      options[i].setAttribute("aria-selected", "true");
      input.setAttribute("aria-activedescendant", options[i].id);
      if (options[i].scrollIntoView) options[i].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function open(on) {
    popup.hidden = !on;
    input.setAttribute("aria-expanded", on ? "true" : "false");
    if (!on) setActive(-1);
  }

  function option(i, href) {
    var li = el("li");
    li.id = "site-search-option-" + i;
    li.setAttribute("role", "option");
    li.setAttribute("aria-selected", "false");
    li.setAttribute("data-href", href);
    return li;
  }

  /* Search the box's text (its index shards and top results' records loaded), then show the top results
     (the list closed when the box is empty); a search started later wins. */
  var latest = 0, shown = null;  /* the query whose results the list holds */
  function render() {
    timer = null;
    var q = input.value, run = ++latest;
    if (!q.trim() || !engine) { fill(q, null); return; }
    popup.setAttribute("aria-busy", "true");  /* until this search's results are shown */
    engine.shards.search(engine.core, q).then(function (found) {
      return engine.shards.records(found.results.slice(0, MAX).map(function (r) { return r.ref; })).then(function () {
        return found;
      });
    }).then(null, function (e) {
      if (window.console) console.error("search failed for", q, e);
      return { groups: [], results: [] };
    }).then(function (found) { if (run === latest) fill(q, found); });
  }

  /* Show found (SearchCore.search's result, its top records loaded) for the query q; null: close the list. */
  function fill(q, found) {
    var again = found && q === shown && active >= 0 ? active : -1;  /* the same query shown again keeps the choice */
    popup.removeAttribute("aria-busy");
    shown = found ? q : null;
    list.textContent = "";
    active = -1;
    input.removeAttribute("aria-activedescendant");
    if (!found) { open(false); if (live) live.textContent = ""; return; }
    found.results.slice(0, MAX).forEach(function (r, i) {
      var doc = engine.shards.record(r.ref), li = option(i, root + doc.url);
      engine.core.appendMarked(li.appendChild(el("span", "ta-title")), doc.title, found.groups);
      li.appendChild(el("span", "ta-meta", doc.venue + (doc.track ? " · " + doc.track : "")));
      list.appendChild(li);
    });
    var n = found.results.length, all = option(list.children.length, allResultsUrl(q));
    all.className = "ta-all";
    all.textContent = n ? (n === 1 ? _("The 1 result for “%(query)s”", {query: q.trim()})
      : _("All %(num)s results for “%(query)s”", {num: n, query: q.trim()}))
      : _("No papers found: search page for “%(query)s”", {query: q.trim()});
    list.appendChild(all);
    open(true);
    if (again >= 0) setActive(Math.min(again, list.children.length - 1));
    if (live) live.textContent = n ? _("Papers found: %(num)s, ↓ to choose", {num: n}) : _("No papers found");
  }

  /* While the search files load (a second or two for 10,000 papers), the list says so. */
  function loadingNote() {
    if (engine || !styled || !input.value.trim() || list.children.length || document.activeElement !== input) return;
    var li = el("li", "ta-note", _("Loading the search…"));
    li.id = "site-search-loading";
    li.setAttribute("role", "option");
    li.setAttribute("aria-disabled", "true");
    li.setAttribute("aria-selected", "false");
    list.appendChild(li);
    open(true);
  }

  function schedule() {
    if (engine && !timer && input.value === shown && list.children.length) { open(true); return; }  /* as it was */
    loadingNote();
    load().then(function () { if (!timer) timer = window.setTimeout(render, 0); }, function () {});
  }

  function go(i) {
    var li = list.children[i];
    if (li && li.getAttribute("data-href")) window.location.href = li.getAttribute("data-href");
  }

  input.addEventListener("focus", function () { load(); if (input.value.trim() && popup.hidden) schedule(); });
  input.addEventListener("input", schedule);
  input.addEventListener("keydown", function (e) {
    var n = engine ? list.children.length : 0;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (popup.hidden) { if (input.value.trim()) schedule(); return; }
      if (!n) return;
      if (e.key === "ArrowDown") setActive(active + 1 >= n ? 0 : active + 1);
      else setActive(active <= 0 ? n - 1 : active - 1);
    } else if (e.key === "Enter") {
      if (!popup.hidden && active >= 0 && engine) { e.preventDefault(); go(active); }
    } else if (e.key === "Escape") {
      if (!popup.hidden) { e.preventDefault(); open(false); }
      else if (input.value) { e.preventDefault(); input.value = ""; }
    } else if (e.key === "Tab") {
      open(false);
    }
  });
  input.addEventListener("blur", function () { open(false); });
  list.addEventListener("mousedown", function (e) { e.preventDefault(); });  /* the box keeps the focus */
  list.addEventListener("click", function (e) {
    var li = e.target.closest ? e.target.closest("[role=option]") : null;
    if (li && li.getAttribute("data-href")) window.location.href = li.getAttribute("data-href");
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    var t = e.target, tag = t && t.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (t && t.isContentEditable)) return;
    e.preventDefault();
    input.focus();
    input.select();
  });
})();
