/* Abstracts in place on list pages (venue, track, author, tag and keyword pages). Each paper item has a
   <details class="abstract-toggle" data-abstracts="<venue-slug>/<digits>">: on first opening, the file
   venues/<venue-slug>/abstracts/<digits>.js (a classic script calling siteAbstracts({id: entry}), so it loads
   from file:// too; site_builder/output/abstracts.py) is added once. An entry is ["<abstract HTML>"], made by
   the site builder's renderer exactly as on the paper's page, or, for an abstract that is one paragraph of
   plain text (most), the paper's search ref: its search record, search/records/<ref>.js (a classic script
   calling searchRecord(ref, record), the file the search page loads for a result; one store of the abstracts
   for both, issue 25), is added and its abstract shown as that paragraph, as text. If a file does not load,
   a link to the paper's page's abstract is shown instead (the items carry no such link of their own: issue 25,
   the site's size). "Show all abstracts" opens every item; the choice is remembered per site (localStorage,
   under a key named after the site's root, as stars.js). */
(function () {
  "use strict";
  var _ = window.siteWords;  // page words in the site's language (assets/words.js)
  var script = document.currentScript;
  /* The site's root: the page's data-site-root when the page names it (the "My list" page), else this script's
     folder's parent (assets/.., as assets/theme.js adds it). */
  var root = script.hasAttribute("data-site-root") ? new URL(script.getAttribute("data-site-root"), window.location.href)
    : new URL("../index.html", script.src);
  var KEY = "reading-list:v1:" + root.pathname.replace(/[^\/]*$/, "") + ":abstracts";
  var abstracts = {};  // paper id → entry of its abstracts file
  var records = {};  // search ref → search record
  var loading = {};  // script address → the disclosures waiting on it
  var ran = {};  // script address → true once it ran

  function fill(details) {
    var item = details.closest("[data-paper-id]");
    var entry = item && abstracts[item.getAttribute("data-paper-id")];
    if (entry === undefined || details.hasAttribute("data-filled")) return;
    var body = document.createElement("div");
    body.className = "abstract-body";
    if (typeof entry === "string") {  // a search ref: the record's abstract is the paragraph's text
      var record = records[entry];
      if (record === undefined) { loadRecord(entry, details); return; }
      var paragraph = document.createElement("p");
      paragraph.textContent = record.abstract;
      body.appendChild(paragraph);
    } else {
      body.innerHTML = entry[0];  // the builder's own rendering of the abstract (as on the paper's page), not list text
    }
    var link = details.querySelector("a.abstract-link");  // there if an earlier load failed
    if (link) details.removeChild(link);
    details.appendChild(body);
    details.setAttribute("data-filled", "");
  }

  function linkInstead(details) {  // the file did not load: the paper's page shows the abstract
    if (details.hasAttribute("data-filled") || details.querySelector("a.abstract-link")) return;
    var link = document.createElement("a");
    link.className = "abstract-link";
    link.href = details.closest("[data-paper-id]").querySelector("a.paper-link").getAttribute("href") + "#abstract";
    link.textContent = _("Read the abstract");
    details.appendChild(link);
  }

  window.siteAbstracts = function (map) {
    Object.keys(map).forEach(function (id) { abstracts[id] = map[id]; });
  };
  /* The search records' call, shared with the search (assets/search-transport.js installs its own the same
     way): each keeps the record and hands it to the one installed before it, so either may load first. */
  var before = window.searchRecord;
  window.searchRecord = function (ref, record) {
    records[ref] = record;
    if (typeof before === "function") before(ref, record);
  };

  /* Add the script at src once; the disclosures waiting on it are filled when it ran, or get the link when it
     does not load (tried again on a later opening) or ran without giving what they need. */
  function addScript(src, details) {
    if (ran[src]) { linkInstead(details); return; }
    if (!loading[src]) {
      loading[src] = [];
      var tag = document.createElement("script");
      tag.src = src;
      tag.onload = function () {
        var waiting = loading[src];
        ran[src] = true;
        delete loading[src];
        tag.remove();
        waiting.forEach(fill);
      };
      tag.onerror = function () { loading[src].forEach(linkInstead); delete loading[src]; tag.remove(); };
      document.head.appendChild(tag);
    }
    loading[src].push(details);
  }

  function loadRecord(ref, details) {
    addScript(new URL("search/records/" + ref + ".js", root).href, details);
  }

  function load(details) {
    var ref = details.getAttribute("data-abstracts").split("/");  // <venue-slug>/<digits> (urls.abstracts_ref)
    var src = new URL("venues/" + ref[0] + "/abstracts/" + ref[1] + ".js", root).href;
    var item = details.closest("[data-paper-id]");
    if (abstracts[item.getAttribute("data-paper-id")] === undefined) addScript(src, details);
    fill(details);
  }

  var all = Array.prototype.slice.call(document.querySelectorAll("details.abstract-toggle"));
  if (!all.length) return;
  all.forEach(function (details) {
    details.addEventListener("toggle", function () { if (details.open) load(details); });
  });

  function remembered() {
    try { return window.localStorage.getItem(KEY) === "open"; } catch (e) { return false; }
  }
  function remember(open) {
    try { if (open) window.localStorage.setItem(KEY, "open"); else window.localStorage.removeItem(KEY); } catch (e) { /* private mode */ }
  }

  var button = document.createElement("button");
  button.type = "button";
  button.className = "show-abstracts";
  function show(open) {
    button.setAttribute("aria-pressed", open ? "true" : "false");
    button.textContent = open ? _("Hide all abstracts") : _("Show all abstracts");
    all.forEach(function (details) { details.open = open; });
  }
  button.addEventListener("click", function () {
    var open = button.getAttribute("aria-pressed") !== "true";
    remember(open);
    show(open);
  });
  var list = document.querySelector(".paper-list");
  var anchor = list.closest("section") || list;
  anchor.parentNode.insertBefore(button, anchor);
  show(remembered());
})();
