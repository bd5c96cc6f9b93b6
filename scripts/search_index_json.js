// Print a built site's search index as JSON: {"index": <lunr 2.3.9 serialised index>, "docs": {ref: record}}.
// The index is read from SITE/search/ (the manifest, every shard and record) by assets/search-transport.js
// (the page's own code), so this is what lunr.Index.load would take to make the whole index the shards hold.
// Usage: node scripts/search_index_json.js SITE_DIR > search-index.json
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const lunr = require(path.join(__dirname, "..", "node_modules", "lunr"));
const transport = require(path.join(__dirname, "..", "assets", "search-transport.js"));

/* window.SEARCH_SHARDS of the site in folder `site` (its manifest run with its own `window` object). */
function siteManifest(site) {
  const context = vm.createContext({ window: {} });
  vm.runInContext(fs.readFileSync(path.join(site, "search", "manifest.js"), "utf8"), context);
  return context.window.SEARCH_SHARDS;
}

/* The sharded index of the site in folder `site` (SearchTransport.shards), loading its files from disk;
   counted: {bytes, files} it has loaded so far. */
function siteShards(site, counted) {
  const calls = vm.createContext({ searchShard: transport.receiveShard, searchRecord: transport.receiveRecord });
  return transport.shards(lunr, siteManifest(site), (file) => {
    const text = fs.readFileSync(path.join(site, file), "utf8");
    if (counted) { counted.bytes += Buffer.byteLength(text); counted.files += 1; }
    vm.runInContext(text, calls, { filename: file });
    return Promise.resolve();
  });
}

/* {index, docs} of the site in folder `site`: every shard and record loaded. */
async function siteData(site) {
  const shards = siteShards(site);
  await shards.loadAll();
  return { index: shards.toJSON(), docs: shards.docs() };
}

if (require.main === module) {
  if (process.argv.length !== 3) {
    process.stderr.write("usage: node scripts/search_index_json.js SITE_DIR\n");
    process.exit(2);
  }
  siteData(process.argv[2]).then((data) => process.stdout.write(JSON.stringify(data)),
                                 (e) => { process.stderr.write(String(e && e.stack || e) + "\n"); process.exit(1); });
}

module.exports = { siteData, siteShards, siteManifest };
