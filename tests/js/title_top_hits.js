// Load a built site's search-index.json with lunr.js from node_modules and, for every paper,
// query its own title through the site's query code (assets/search-core.js).
// Prints JSON: [{ref, title, top, rank}].
// Usage: node tests/js/title_top_hits.js SITE_DIR
"use strict";
const fs = require("fs");
const path = require("path");
const lunr = require(path.join(__dirname, "..", "..", "node_modules", "lunr"));
const core = require(path.join(__dirname, "..", "..", "assets", "search-core.js"));

const data = JSON.parse(fs.readFileSync(path.join(process.argv[2], "search-index.json"), "utf8"));
const index = lunr.Index.load(data.index);
const out = Object.keys(data.docs).sort().map((ref) => {
  const title = data.docs[ref].title;
  const hits = core.search(lunr, index, title).results;
  return { ref, title, top: hits.length ? hits[0].ref : null, rank: hits.findIndex((h) => h.ref === ref) };
});
process.stdout.write(JSON.stringify(out));
