// Compare the sharded search index of a built site (search/, read by assets/search-transport.js as the
// page reads it, each query loading only its shards) with the whole index: lunr.Index.load of the lunr
// 2.3.9 serialised index that site_builder/search/indexer.py computes, queried by the same SearchCore.
// stdin: {"site": folder of the built site, "reference": path of {"index": serialised index,
//         "docs": {ref: record}} (search.index.build_search_data), "queries": [string, ...]}
// stdout: {"queries": n, "results": total results, "mismatches": [{query, whole, sharded}...] (at most 20),
//          "bytes": [bytes of the files each query loaded, one engine per query], "files": [files loaded]}
"use strict";
const fs = require("fs");
const path = require("path");
const lunr = require(path.join(__dirname, "..", "..", "node_modules", "lunr"));
const core = require(path.join(__dirname, "..", "..", "assets", "search-core.js"));
const { siteShards } = require(path.join(__dirname, "..", "..", "scripts", "search_index_json.js"));

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const reference = JSON.parse(fs.readFileSync(input.reference, "utf8"));
const whole = lunr.Index.load(reference.index);

/* A sharded engine that counts what it loads. */
function engine() {
  const counted = { bytes: 0, files: 0 };
  return { shards: siteShards(input.site, counted), counted };
}

function summary(found) {
  return found.results.map((r) => `${r.ref}:${r.score}:${r.titleGroups}:${r.terms.slice().sort().join(" ")}`);
}

(async () => {
  const out = { queries: 0, results: 0, mismatches: [], bytes: [], files: [] };
  for (const query of input.queries) {
    const expected = summary(core.search(lunr, whole, query, (ref) => reference.docs[ref]));
    const { shards, counted } = engine();
    const got = summary(await shards.search(core, query));
    out.queries += 1;
    out.results += expected.length;
    out.bytes.push(counted.bytes);
    out.files.push(counted.files);
    if (JSON.stringify(got) !== JSON.stringify(expected) && out.mismatches.length < 20) {
      out.mismatches.push({ query, whole: expected.slice(0, 10), sharded: got.slice(0, 10) });
    }
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
