// Load a built site's sharded search index as the page does (assets/search-transport.js, lunr.js from
// node_modules) and, for every paper, query its own title through the site's query code
// (assets/search-core.js), each query loading only the shards it needs.
// Prints JSON: [{ref, title, top, rank}].
// Usage: node tests/js/title_top_hits.js SITE_DIR
"use strict";
const path = require("path");
const core = require(path.join(__dirname, "..", "..", "assets", "search-core.js"));
const { siteData, siteShards } = require(path.join(__dirname, "..", "..", "scripts", "search_index_json.js"));

(async () => {
  const site = process.argv[2], docs = (await siteData(site)).docs, out = [];
  for (const ref of Object.keys(docs).sort()) {
    const title = docs[ref].title;
    const hits = (await siteShards(site).search(core, title)).results;
    out.push({ ref, title, top: hits.length ? hits[0].ref : null, rank: hits.findIndex((h) => h.ref === ref) });
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { process.stderr.write(String(e && e.stack || e) + "\n"); process.exit(1); });
