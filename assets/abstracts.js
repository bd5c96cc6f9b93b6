/* Abstracts in place on list pages (venue, track, author, tag and keyword pages). Each paper item has a
   <details class="abstract-toggle" data-abstracts="<venue-slug>/<digits>">: on first opening, the file
   venues/<venue-slug>/abstracts/<digits>.js
   holding its abstract (a classic script calling siteAbstracts({id: html}), so it loads from file:// too)
   is added once, and the abstract's HTML, made by the site builder's renderer exactly as on the paper's
   page, is shown in the disclosure (if the file does not load, a link to the paper's page's abstract; the
   items carry no such link of their own: issue 25, the site's size). "Show all abstracts" opens every item;
   the choice is remembered per site (localStorage, under a key named after the site's root, as stars.js). */
(function () {
  "use strict";
  var _ = window.siteWords;  // page words in the site's language (assets/words.js)
  var script = document.currentScript;
  /* The site's root: the page's data-site-root when the page names it (the "My list" page), else this script's
     folder's parent (assets/.., as assets/theme.js adds it). */
  var root = script.hasAttribute("data-site-root") ? new URL(script.getAttribute("data-site-root"), window.location.href)
    : new URL("../index.html", script.src);
  var KEY = "reading-list:v1:" + root.pathname.replace(/[^\/]*$/, "") + ":abstracts";
  var abstracts = {};
  var loading = {};

  function fill(details) {
    var item = details.closest("[data-paper-id]");
    var html = item && abstracts[item.getAttribute("data-paper-id")];
    if (html === undefined || details.hasAttribute("data-filled")) return;
    var body = document.createElement("div");
    body.className = "abstract-body";
    body.innerHTML = html;  // the builder's own rendering of the abstract (as on the paper's page), not list text
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

  function load(details) {
    var ref = details.getAttribute("data-abstracts").split("/");  // <venue-slug>/<digits> (urls.abstracts_ref)
    var src = new URL("venues/" + ref[0] + "/abstracts/" + ref[1] + ".js", root).href;
    if (!loading[src]) {
      loading[src] = [];
      var tag = document.createElement("script");
      tag.src = src;
      tag.onload = function () { loading[src].forEach(fill); loading[src] = []; };
      tag.onerror = function () { loading[src].forEach(linkInstead); delete loading[src]; tag.remove(); };
      document.head.appendChild(tag);
    }
    loading[src].push(details);
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
