// The search page's engine typed key by key, two checkouts alternating in one process (issue 25).
//
// Usage (from the repository root): node bench/typing_speed.js SITE CHECKOUT_A CHECKOUT_B WORD...
//
// Each checkout (a folder with assets/, scripts/search_index_json.js and node_modules/, e.g. a
// `git worktree add` of another commit with node_modules linked in) gets an engine of its own over SITE's
// sharded index, loading from disk. Every prefix of every WORD is searched once to load what it needs, then
// 6 rounds, the checkouts alternating and taking turns to go first, search every prefix of every word
// (SearchCore.search through SearchTransport.shards, as the search page does at each key). Prints per
// checkout the median round (all keys) and the median of the words' last keys, in ms of this machine at
// this moment, and the ratio. A measurement, not a test: the page's drawing is not included (see
// bench/search_bench.py for the page in Chromium).
"use strict";
const path = require("path");

const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];

function checkout(folder) {
  const core = require(path.join(path.resolve(folder), "assets", "search-core.js"));
  const { siteShards } = require(path.join(path.resolve(folder), "scripts", "search_index_json.js"));
  return { folder, core, siteShards, rounds: [], lastKeys: [] };
}

async function typeAll(side, words, timed) {
  let total = 0;
  for (const w of words) {
    for (let i = 1; i <= w.length; i++) {
      const t0 = performance.now();
      await side.engine.search(side.core, w.slice(0, i));
      const ms = performance.now() - t0;
      total += ms;
      if (timed && i === w.length) side.lastKeys.push(ms);
    }
  }
  if (timed) side.rounds.push(total);
}

(async () => {
  const [site, a, b, ...words] = process.argv.slice(2);
  if (!site || !b || !words.length) {
    process.stderr.write("usage: node bench/typing_speed.js SITE CHECKOUT_A CHECKOUT_B WORD...\n");
    process.exit(2);
  }
  const sides = [checkout(a), checkout(b)];
  for (const side of sides) {
    side.engine = side.siteShards(site);
    await typeAll(side, words, false);
  }
  for (let round = 0; round < 6; round++) {
    for (const side of round % 2 ? sides.slice().reverse() : sides) await typeAll(side, words, true);
  }
  console.log("| checkout | every key of every word, median of 6 rounds (ms) | last key, median (ms) |\n|---|---:|---:|");
  for (const side of sides) {
    console.log(`| ${side.folder} | ${median(side.rounds).toFixed(0)} | ${median(side.lastKeys).toFixed(1)} |`);
  }
  const [x, y] = sides.map((s) => median(s.rounds));
  console.log(`\nratio (A / B, every key): ${(x / y).toFixed(2)}`);
})().catch((e) => { process.stderr.write(String(e && e.stack || e) + "\n"); process.exit(1); });
