/* Page words of the browser scripts in the site's language. window.siteWords(text, values) gives text from
   window.SITE_STRINGS (assets/strings.js, written by the build for a site in another language than English;
   the scripts' English words are the keys) or text itself, with each "%(name)s" filled from values. Loaded
   in every page's head, before the scripts that use it (stars.js, filter.js, abstracts.js, search.js,
   typeahead.js), which extract as _("…") for Babel (babel.cfg). window.siteElement(tag, cls, text), the
   elements those scripts make, is here for the same reason: every page has this file already. */
window.siteWords = function (text, values) {
  "use strict";
  var out = (window.SITE_STRINGS || {})[text] || text;
  return out.replace(/%\((\w+)\)s/g, function (m, name) { return values && name in values ? values[name] : m; });
};

/* A new element tag with class cls and text (as text, never HTML), each optional but tag. */
window.siteElement = function (tag, cls, text) {
  "use strict";
  var node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text) node.textContent = text;
  return node;
};
