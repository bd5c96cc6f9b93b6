// Run queries through assets/search-core.js against lunr.js-loaded indexes.
// stdin: {"indexes": [serialised index, ...], "queries": [string, ...]}
// stdout: for each index, for each query: {ok, error, results: [[ref, score, titleGroups], ...]}
// (a lunr.Index.load failure is reported as {"load_error": message} for that index).
"use strict";
const path = require("path");
const lunr = require(path.join(__dirname, "..", "..", "node_modules", "lunr"));
const core = require(path.join(__dirname, "..", "..", "assets", "search-core.js"));

const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = input.indexes.map((serialised) => {
  let index;
  try { index = lunr.Index.load(serialised); } catch (e) { return { load_error: String(e) }; }
  return input.queries.map((q) => {
    try {
      const found = core.search(lunr, index, q).results;
      return { ok: true, results: found.map((r) => [r.ref, r.score, r.titleGroups]) };
    } catch (e) {
      return { ok: false, error: String(e && e.stack || e) };
    }
  });
});
process.stdout.write(JSON.stringify(out));
