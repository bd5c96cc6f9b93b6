// Call functions of assets/search-core.js: stdin [[name, ...args], ...], stdout [result, ...].
// "snippet" takes (text, query): SearchCore.snippet(text, SearchCore.parseQuery(query)).
"use strict";
const path = require("path");
const core = require(path.join(__dirname, "..", "..", "assets", "search-core.js"));

const calls = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(calls.map(([name, ...args]) => {
  if (name === "snippet") return core.snippet(args[0], core.parseQuery(args[1]));
  return core[name](...args);
})));
