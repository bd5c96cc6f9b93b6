// Reference index from lunr.js 2.3.9 itself over pre-tokenised documents (empty pipeline),
// to compare with site_builder/indexer.py. Reads JSON from stdin:
//   {"fields": [[name, boost], ...], "docs": [[ref, {field: [term, ...]}], ...]}
// and prints lunr's Index.toJSON().
"use strict";
const path = require("path");
const lunr = require(path.join(__dirname, "..", "..", "node_modules", "lunr"));

const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const builder = new lunr.Builder();
builder.pipeline.reset();
builder.searchPipeline.reset();
builder.ref("ref");
input.fields.forEach(([name, boost]) => builder.field(name, { boost }));
input.docs.forEach(([ref, fields]) => {
  const doc = { ref };
  input.fields.forEach(([name]) => { doc[name] = fields[name] || []; });
  builder.add(doc);
});
process.stdout.write(JSON.stringify(builder.build().toJSON()));
