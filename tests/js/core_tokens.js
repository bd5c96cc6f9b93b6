// The JS side of the tokenizer (assets/search-core.js) over many strings, for the agreement
// test with site_builder/tokenize.py. Reads a JSON list of strings from stdin; prints
// [{norm, tokens, query, german}] (query: SearchCore.queryAlternatives of the string; german: SearchCore.transliterated).
// With --classes: prints the code points that are word characters (L*, N*) and marks (M*).
"use strict";
const path = require("path");
const core = require(path.join(__dirname, "..", "..", "assets", "search-core.js"));

if (process.argv[2] === "--classes") {
  const word = [], mark = [];
  const W = /^[\p{L}\p{N}]$/u, M = /^\p{M}$/u;
  for (let cp = 0; cp < 0x110000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    if (W.test(ch)) word.push(cp);
    if (M.test(ch)) mark.push(cp);
  }
  process.stdout.write(JSON.stringify({ word, mark }));
} else {
  const texts = JSON.parse(require("fs").readFileSync(0, "utf8"));
  process.stdout.write(JSON.stringify(texts.map((t) => ({
    norm: core.normalise(t), tokens: core.indexTokens(t), query: core.queryAlternatives(t),
    german: core.transliterated(t)
  }))));
}
