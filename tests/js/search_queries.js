// Run queries through assets/search-core.js against lunr.js-loaded indexes.
// stdin: {"indexes": [serialised index, ...], "queries": [string, ...], "docs": [{ref: record} | null, ...]}
// (docs optional: each index's result records, which phrase queries are checked against)
// stdout: for each index, for each query: {ok, error, results: [[ref, score, titleGroups], ...], excludedOnly}
// (a lunr.Index.load failure is reported as {"load_error": message} for that index).
"use strict";
const path = require("path");
const lunr = require(path.join(__dirname, "..", "..", "node_modules", "lunr"));
const core = require(path.join(__dirname, "..", "..", "assets", "search-core.js"));

const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = input.indexes.map((serialised, i) => {
  let index;
  try { index = lunr.Index.load(serialised); } catch (e) { return { load_error: String(e) }; }
  const docs = (input.docs || [])[i];
  const record = docs ? (ref) => docs[ref] : undefined;
  return input.queries.map((q) => {
    try {
      const found = core.search(lunr, index, q, record);
      return { ok: true, results: found.results.map((r) => [r.ref, r.score, r.titleGroups]), excludedOnly: found.excludedOnly };
    } catch (e) {
      return { ok: false, error: String(e && e.stack || e) };
    }
  });
});
process.stdout.write(JSON.stringify(out));
