// Load a built site's search-index.js as the page does (assets/search-transport.js, lunr.js from
// node_modules) and, for every paper, query its own title through the site's query code
// (assets/search-core.js).
// Prints JSON: [{ref, title, top, rank}].
// Usage: node tests/js/title_top_hits.js SITE_DIR
"use strict";
const path = require("path");
const lunr = require(path.join(__dirname, "..", "..", "node_modules", "lunr"));
const core = require(path.join(__dirname, "..", "..", "assets", "search-core.js"));
const transport = require(path.join(__dirname, "..", "..", "assets", "search-transport.js"));
const { siteData } = require(path.join(__dirname, "..", "..", "scripts", "search_index_json.js"));

const data = siteData(process.argv[2]);
const index = transport.load(lunr, data);
const record = transport.records(data);
const out = data.refs.slice().sort().map((ref) => {
  const title = record(ref).title;
  const hits = core.search(lunr, index, title).results;
  return { ref, title, top: hits.length ? hits[0].ref : null, rank: hits.findIndex((h) => h.ref === ref) };
});
process.stdout.write(JSON.stringify(out));
