// The page's query scoring against lunr's own, on a built site's sharded index (issue 25).
//
// Usage (from the repository root): node bench/scorer_speed.js SITE QUERY...
//
// For each query: a fresh engine (SearchTransport.shards through scripts/search_index_json.js, loading from
// disk) loads the query's shards, then 5 alternating rounds time SearchCore.search through the engine (its
// scorer, SearchTransport's scoreQuery) and SearchCore.search on engine.index() (lunr.Index.query over the
// same loaded terms); prints a Markdown row per query: results, lunr's median ms, the scorer's median ms, the
// ratio. Both give the same results (tests/search/test_search_transport.py, scripts/shard_equality.py). A
// measurement, not a test: timings are of this machine at this moment.
"use strict";
const path = require("path");
const lunr = require(path.join(__dirname, "..", "node_modules", "lunr"));
const core = require(path.join(__dirname, "..", "assets", "search-core.js"));
const { siteShards } = require(path.join(__dirname, "..", "scripts", "search_index_json.js"));

const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];

(async () => {
  const [site, ...queries] = process.argv.slice(2);
  console.log("| query | results | lunr's Index.query ms | scoreQuery ms | ratio |\n|---|---:|---:|---:|---:|");
  for (const q of queries) {
    const engine = siteShards(site);
    const found = await engine.search(core, q);
    const fast = [], slow = [];
    for (let i = 0; i < 5; i++) {
      let t0 = performance.now();
      await engine.search(core, q);
      fast.push(performance.now() - t0);
      t0 = performance.now();
      core.search(lunr, engine.index(), q, (ref) => engine.record(ref) || null);
      slow.push(performance.now() - t0);
    }
    const [s, f] = [median(slow), median(fast)];
    console.log(`| \`${q}\` | ${found.results.length.toLocaleString("en")} | ${s.toFixed(0)} | ${f.toFixed(0)} | ${(s / f).toFixed(1)} |`);
  }
})().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
