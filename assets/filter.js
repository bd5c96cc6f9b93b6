/* Filter the papers of a venue or track page by the curator's reading status and tag
   (data-status / data-tags on each .paper-item). Without JavaScript the form stays hidden;
   the tag pages list the same papers. */
(function () {
  "use strict";
  var _ = window.siteWords;  // page words in the site's language (assets/words.js)
  var form = document.querySelector("form[data-list-filter]");
  if (!form) return;
  var items = document.querySelectorAll(".paper-item[data-paper-id]");
  var count = form.querySelector(".filter-count");
  function apply() {
    var status = form.elements.status.value, tag = form.elements.tag.value, shown = 0;
    Array.prototype.forEach.call(items, function (item) {
      var tags = (item.getAttribute("data-tags") || "").split(" ");
      var ok = (!status || item.getAttribute("data-status") === status) && (!tag || tags.indexOf(tag) >= 0);
      item.hidden = !ok;
      if (ok) shown++;
    });
    Array.prototype.forEach.call(document.querySelectorAll(".track-group"), function (group) {
      group.hidden = !group.querySelector(".paper-item:not([hidden])");
    });
    count.textContent = status || tag ? _("Papers shown: %(shown)s of %(total)s", {shown: shown, total: items.length}) : "";
  }
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  form.hidden = false;
  apply();
})();
