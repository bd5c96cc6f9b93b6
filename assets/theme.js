/* Light/dark theme. The site follows the system setting (prefers-color-scheme, in style.css)
   unless the reader picked the other theme with the toggle; that choice is kept in
   localStorage["theme"] ("light" | "dark") and set as <html data-theme="…">.
   Loaded as a classic (blocking) script in <head>, so the stored choice applies before
   the first paint: no flash of the wrong theme. The toggle (#theme-toggle, after the site's title in the header)
   is made here rather than repeated in every page's markup (issue 25, the site's size); without JavaScript there
   is none and the system setting applies.
   Being on every page, it also adds, once the page is parsed, the scripts the page's parts need, from its own
   folder (the site's assets/), rather than a tag of each on every page (issue 25): typeahead.js for the header's
   search field, abstracts.js for the list items' abstract disclosures, stars.js for a paper page's reading
   actions. They find the site's root from their own address. */
(function () {
  "use strict";
  var KEY = "theme";
  var _ = window.siteWords || function (text) { return text; };  // page words (assets/words.js, loaded before)
  var root = document.documentElement;
  var system = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  var me = document.currentScript;
  var assets = me && me.src ? me.src.replace(/[^\/]*$/, "") : "";

  function stored() {
    try {
      var value = window.localStorage.getItem(KEY);
      return value === "light" || value === "dark" ? value : null;
    } catch (e) { return null; } /* storage disabled */
  }
  function store(value) {
    try {
      if (value) window.localStorage.setItem(KEY, value); else window.localStorage.removeItem(KEY);
    } catch (e) { /* storage disabled: the choice lasts for this page only */ }
  }
  function systemTheme() { return system && system.matches ? "dark" : "light"; }
  function apply(value) {
    if (value) root.setAttribute("data-theme", value); else root.removeAttribute("data-theme");
  }
  function current() { return root.getAttribute("data-theme") || systemTheme(); }

  apply(stored());

  /* The page's scripts (see above): each added when the page has what it serves. */
  var SCRIPTS = [["typeahead.js", "#site-search"], ["abstracts.js", "details.abstract-toggle"],
                 ["stars.js", "article.paper[data-paper-id]"]];
  document.addEventListener("DOMContentLoaded", function () {
    if (!assets) return;
    SCRIPTS.forEach(function (pair) {
      if (!document.querySelector(pair[1])) return;
      var tag = document.createElement("script");
      tag.src = assets + pair[0];
      document.body.appendChild(tag);
    });
  });

  document.addEventListener("DOMContentLoaded", function () {
    var title = document.querySelector(".site-header .site-title");
    var button = document.getElementById("theme-toggle");
    if (!button && !title) return;
    if (!button) {
      button = document.createElement("button");
      button.type = "button";
      button.id = "theme-toggle";
      button.className = "theme-toggle";
      button.textContent = _("Dark theme");
      title.parentNode.insertBefore(button, title.nextSibling);
    }
    function sync() { button.setAttribute("aria-pressed", current() === "dark" ? "true" : "false"); }
    button.addEventListener("click", function () {
      var next = current() === "dark" ? "light" : "dark";
      /* Picking the system's own theme goes back to following the system. */
      var choice = next === systemTheme() ? null : next;
      store(choice);
      apply(choice);
      sync();
    });
    if (system && system.addEventListener) system.addEventListener("change", sync);
    sync();
    button.hidden = false;
  });
})();
