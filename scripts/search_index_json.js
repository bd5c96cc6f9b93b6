// Print a built site's search index as JSON: {"index": <lunr 2.3.9 serialised index>, "docs": {ref: record}}.
// The index is unpacked from SITE/search-index.js by assets/search-transport.js (the page's own code),
// so this is what lunr.Index.load would take to make the page's index.
// Usage: node scripts/search_index_json.js SITE_DIR > search-index.json
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const transport = require(path.join(__dirname, "..", "assets", "search-transport.js"));

/* window.SEARCH_DATA of the site in folder `site` (its script run with its own `window` object). */
function siteData(site) {
  const window = {};
  const source = fs.readFileSync(path.join(site, "search-index.js"), "utf8");
  vm.runInThisContext("(function (window) {\n" + source + "\n})", { filename: "search-index.js" })(window);
  return window.SEARCH_DATA;
}

if (require.main === module) {
  if (process.argv.length !== 3) {
    process.stderr.write("usage: node scripts/search_index_json.js SITE_DIR\n");
    process.exit(2);
  }
  const data = siteData(process.argv[2]);
  process.stdout.write(JSON.stringify({ index: transport.toJSON(data), docs: transport.docs(data) }));
}

module.exports = { siteData };
