// Compare a packed search index (search-index.js, read by assets/search-transport.js as the page
// reads it) with the lunr 2.3.9 serialised index that site_builder/indexer.py computes.
// stdin: {"script": path of search-index.js, "reference": path of the serialised index (JSON),
//         "docs": path of the {ref: record} JSON, "queries": [string, ...]}
// stdout: {"serialised": "equal" | message, "index": "equal" | message, "tokenSet": "equal" | message,
//          "docs": "equal" | message, "queries": n, "results": total results, "mismatches": [...]}
"use strict";
const assert = require("assert");
const fs = require("fs");
const path = require("path");
const lunr = require(path.join(__dirname, "..", "..", "node_modules", "lunr"));
const core = require(path.join(__dirname, "..", "..", "assets", "search-core.js"));
const transport = require(path.join(__dirname, "..", "..", "assets", "search-transport.js"));
const { siteData } = require(path.join(__dirname, "..", "..", "scripts", "search_index_json.js"));

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const data = siteData(path.dirname(input.script));
const reference = JSON.parse(fs.readFileSync(input.reference, "utf8"));
const expectedDocs = JSON.parse(fs.readFileSync(input.docs, "utf8"));

function same(actual, expected) {
  try { assert.deepStrictEqual(actual, expected); return "equal"; } catch (e) { return String(e.message).slice(0, 2000); }
}

/* The same token set: at every node reached by the same path, the same final flag and the same edge
   labels in the same order (Object.keys order is what intersect and toArray follow). */
function sameTokenSet(a, b) {
  const stack = [[a, b, ""]];
  let nodes = 0;
  while (stack.length) {
    const [x, y, prefix] = stack.pop();
    nodes++;
    if (x.final !== y.final) return `final differs at ${JSON.stringify(prefix)}`;
    const kx = Object.keys(x.edges), ky = Object.keys(y.edges);
    if (JSON.stringify(kx) !== JSON.stringify(ky)) return `edges differ at ${JSON.stringify(prefix)}: ${kx} vs ${ky}`;
    kx.forEach((k) => stack.push([x.edges[k], y.edges[k], prefix + k]));
  }
  return nodes > 1 ? "equal" : "empty";
}

/* lunr's own query-string search (no field or operator syntax), as [[ref, score, metadata]...] or the error. */
function lunrSearch(idx, q) {
  try {
    return idx.search(q.replace(/[:~^+\-*]/g, " ")).map((r) => [r.ref, r.score, JSON.stringify(r.matchData.metadata)]);
  } catch (e) {
    return String(e);
  }
}

const mine = transport.load(lunr, data);
const theirs = lunr.Index.load(reference);
const out = {
  serialised: same(transport.toJSON(data), reference),
  index: same(JSON.parse(JSON.stringify(mine.toJSON())), reference),
  docs: same(transport.docs(data), expectedDocs),
};
// a fresh index for the queries, so that they meet nodes, postings and vectors not yet made
const index = transport.load(lunr, data);
out.tokenSet = sameTokenSet(transport.load(lunr, data).tokenSet, theirs.tokenSet);
out.queries = input.queries.length;
out.results = 0;
out.mismatches = [];
input.queries.forEach((q) => {
  const a = core.search(lunr, index, q).results, b = core.search(lunr, theirs, q).results;
  const ra = a.map((r) => [r.ref, r.score, r.titleGroups, r.terms]), rb = b.map((r) => [r.ref, r.score, r.titleGroups, r.terms]);
  const la = lunrSearch(index, q), lb = lunrSearch(theirs, q);
  out.results += rb.length;
  if (JSON.stringify(ra) !== JSON.stringify(rb) || JSON.stringify(la) !== JSON.stringify(lb)) out.mismatches.push(q);
});
process.stdout.write(JSON.stringify(out));
