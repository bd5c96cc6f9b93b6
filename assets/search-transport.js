/* SearchTransport: reads the sharded search index (search/manifest.js, search/terms/<k>.js,
   search/records/<ref>.js, written by site_builder/search/shards.py, whose docstring gives the
   format) as a lunr.js 2.3.9 index. Shared by the browser (window.SearchTransport) and Node
   (require("./assets/search-transport.js")).

   shards(lunr, manifest, load) loads, for each query, the shards of the terms it reads and makes a
   lunr.Index of the terms loaded: postings as lunr's invertedIndex, field vectors made when lunr first
   reads one (the loaded terms' entries: all a query's scores read), and a token set that is a trie over
   the sorted terms whose nodes make their edges when first read, with the same edges in the same
   order as lunr.TokenSet.Builder's; so every query gives the results, scores and order of
   lunr.Index.load(<the index serialised by site_builder/search/indexer.py>).
   tests/search/test_search_transport.py compares both, deep and exact, with the Python one. */
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = factory();
  else {
    root.SearchTransport = factory();
    /* The calls of the sharded index's files (search/terms/<k>.js, search/records/<ref>.js). */
    root.searchShard = root.SearchTransport.receiveShard;
    root.searchRecord = root.SearchTransport.receiveRecord;
  }
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var CONT = 42;
  var DIGITS = "";
  for (var c = 0x20; c < 0x7f; c++) if ("'\\<".indexOf(String.fromCharCode(c)) < 0) DIGITS += String.fromCharCode(c);
  var FINAL = DIGITS.length - CONT;
  /* Character code → digit (continuation digits 0..CONT-1, final digits CONT..), 255: not a digit. */
  var DIGIT = new Uint8Array(128).fill(255);
  for (var i = 0; i < DIGITS.length; i++) DIGIT[DIGITS.charCodeAt(i)] = i;

  function bad(what) { return new Error("search index: " + what); }

  /* The numbers packed in text[from..to) (see transport.py), appended to out (an array). */
  function numbers(text, from, to, out) {
    var v = 0;
    for (var p = from; p < to; p++) {
      var d = DIGIT[text.charCodeAt(p)];
      if (d < CONT) v = v * CONT + d;
      else if (d !== 255) { out.push(v * FINAL + d - CONT); v = 0; }
      else throw bad("bad character at " + p);
    }
    if (v !== 0 || (to > from && DIGIT[text.charCodeAt(to - 1)] < CONT)) throw bad("number cut at " + to);
    return out;
  }

  /* The term list of data (front-coded, see transport.py). */
  function terms(data) {
    var lengths = numbers(data.terms, 0, data.terms.length, []), suffixes = data.suffixes;
    var out = new Array(lengths.length / 2), prev = "", at = 0;
    for (var t = 0; t < out.length; t++) {
      var rest = lengths[2 * t + 1];
      prev = prev.slice(0, lengths[2 * t]) + suffixes.slice(at, at + rest);
      at += rest;
      out[t] = prev;
    }
    if (at !== suffixes.length) throw bad("terms do not add up");
    return out;
  }

  /* The first n in [lo, hi) with terms[n] >= key (JavaScript's < compares UTF-16 code units, the terms' order). */
  function lowerBound(terms, key, lo, hi) {
    while (lo < hi) {
      var mid = (lo + hi) >>> 1;
      if (terms[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  /* The token-set node type over the sorted terms: Node(lo, hi, depth) stands for terms[lo..hi-1],
     which share their first `depth` code units; it is final when that prefix is itself a term (then
     terms[lo]); its edges, made when first read, go one per next code unit in ascending order (the
     order in which lunr.TokenSet.Builder inserts them), each to the node of the terms that follow it. */
  function nodeType(lunr, terms) {
    function Node(lo, hi, depth) {
      this.id = lunr.TokenSet._nextId++;
      this.final = terms[lo].length === depth;
      this.lo = lo;
      this.hi = hi;
      this.depth = depth;
    }
    Node.prototype = Object.create(lunr.TokenSet.prototype);
    Node.prototype.constructor = Node;
    Object.defineProperty(Node.prototype, "edges", {
      configurable: true,
      get: function () {
        var edges = {}, i = this.final ? this.lo + 1 : this.lo, hi = this.hi, depth = this.depth;
        while (i < hi) {
          var unit = terms[i].charCodeAt(depth), j = hi;
          if (unit < 0xffff) j = lowerBound(terms, terms[i].slice(0, depth) + String.fromCharCode(unit + 1), i + 1, hi);
          edges[String.fromCharCode(unit)] = new Node(i, j, depth + 1);
          i = j;
        }
        Object.defineProperty(this, "edges", { value: edges, writable: true, enumerable: true, configurable: true });
        return edges;
      }
    });
    return Node;
  }

  /* A read-only object whose property `key` is make(key) (made once; none when make gives undefined)
     and whose keys are keys(). */
  function lazyObject(make, keys) {
    var made = new Map();
    function get(key) {
      if (typeof key !== "string") return undefined;
      var value = made.get(key);
      if (value !== undefined || made.has(key)) return value;
      value = make(key);
      made.set(key, value);
      return value;
    }
    function refuse() { return false; }
    return new Proxy({}, {
      get: function (target, key) { var v = get(key); return v === undefined ? target[key] : v; },
      has: function (target, key) { return get(key) !== undefined || key in target; },
      ownKeys: function () { return keys(); },
      getOwnPropertyDescriptor: function (target, key) {
        var v = get(key);
        return v === undefined ? undefined : { value: v, writable: true, enumerable: true, configurable: true };
      },
      set: refuse, deleteProperty: refuse, defineProperty: refuse, setPrototypeOf: refuse
    });
  }

  var EMPTY = {};
  var SHARDS_FORMAT = "site-lunr-shards-1";
  /* What the sharded index's files gave (searchShard(k, data), searchRecord(ref, record)) until taken. */
  var received = { shards: new Map(), records: new Map() };
  function receiveShard(k, data) { received.shards.set(k, data); }
  function receiveRecord(ref, record) { received.records.set(ref, record); }
  function take(map, key, what) {
    var value = map.get(key);
    if (value === undefined) throw bad(what + " did not load");
    map.delete(key);
    return value;
  }

  /* The last n in [0, list.length) with list[n] <= key (strict: < key), or -1. */
  function lastAtMost(list, key, strict) {
    var lo = 0, hi = list.length;
    while (lo < hi) {
      var mid = (lo + hi) >>> 1;
      if (list[mid] < key || (!strict && list[mid] === key)) lo = mid + 1; else hi = mid;
    }
    return lo - 1;
  }

  /* The smallest string above every string that starts with prefix (its last code unit one higher). */
  function above(prefix) {
    var last = prefix.charCodeAt(prefix.length - 1);
    return last < 0xffff ? prefix.slice(0, -1) + String.fromCharCode(last + 1) : prefix + "\uffff\uffff";
  }

  /* The numbers of the shards that hold the terms wanted: [{term, prefix}] (prefix: every term starting with it). */
  function shardsFor(first, wanted) {
    var out = [];
    wanted.forEach(function (w) {
      var from = lastAtMost(first, w.term, false), to = w.prefix ? lastAtMost(first, above(w.term), true) : from;
      for (var k = Math.max(from, 0); k <= to; k++) if (out.indexOf(k) < 0) out.push(k);
    });
    return out.sort(function (a, b) { return a - b; });
  }

  /* Facets of the manifest: document number → {venue, year, track}. */
  function factsOf(manifest) {
    var runs = numbers(manifest.runs, 0, manifest.runs.length, []), ends = [], facet = [], at = 0;
    for (var i = 0; i < runs.length; i += 2) { ends.push(at += runs[i]); facet.push(runs[i + 1]); }
    if (at !== manifest.count) throw bad("facet runs do not add up");
    return function (d) {
      var lo = 0, hi = ends.length;
      while (lo < hi) { var mid = (lo + hi) >>> 1; if (ends[mid] <= d) lo = mid + 1; else hi = mid; }
      var f = lo < ends.length ? manifest.facets[facet[lo]] : null;
      return f ? { venue: f[0], year: f[1], track: f[2] } : null;
    };
  }

  /* The sharded index of manifest (window.SEARCH_SHARDS, written by site_builder/search/shards.py,
     whose docstring gives the format). load(path) loads the site-root relative script path (its
     searchShard/searchRecord call done) and returns a Promise. Returns {index() (a lunr.Index over the
     terms loaded: a query whose terms are loaded, see shardsFor, gets the whole index's results, scores
     and order), record(ref) (a loaded record or undefined), records(refs) → Promise (loads them), facts(ref),
     search(core, query) → Promise of core.search's result (the query's shards loaded, and the
     records its phrases and exclusions check), loadAll(), toJSON(), docs() (for tools and tests)}.
     Throws Error on another format. */
  function shards(lunr, manifest, load) {
    if (!manifest || manifest.format !== SHARDS_FORMAT) throw bad("unknown format " + (manifest && manifest.format));
    var fields = manifest.fields, F = fields.length, first = manifest.first;
    var start = numbers(manifest.start, 0, manifest.start.length, []), facts = factsOf(manifest);
    var shardTerms = new Map(), loading = new Map(), records = new Map(), recordLoading = new Map();
    var inverted = Object.create(null), slots = new Map(), current = null;

    function add(k, data) {
      var list = terms(data), v = numbers(data.postings, 0, data.postings.length, []);
      var s = numbers(data.scores, 0, data.scores.length, []), p = 0, q = 0;
      list.forEach(function (term, i) {
        var t = start[k] + i, mask = v[p++], posting = { _index: t };
        for (var f = 0; f < F; f++) {
          var docs = {};
          if (mask & (1 << f)) {
            var n = v[p++], d = -1;
            for (var j = 0; j < n; j++) {
              d += v[p++] + 1;
              docs[d.toString(36)] = EMPTY;
              var slot = d * F + f, entries = slots.get(slot);
              if (!entries) slots.set(slot, entries = []);
              entries.push([t, s[q++] / 1000]);
            }
          }
          posting[fields[f]] = docs;
        }
        inverted[term] = posting;
      });
      if (p !== v.length || q !== s.length) throw bad("shard " + k + " does not add up");
      shardTerms.set(k, list);
      current = null;
    }

    function shard(k) {
      if (shardTerms.has(k)) return Promise.resolve();
      if (!loading.has(k)) {
        loading.set(k, load("search/terms/" + k + ".js").then(function () {
          add(k, take(received.shards, k, "search shard " + k));
        }).finally(function () { loading.delete(k); }));
      }
      return loading.get(k);
    }

    /* The field vector "field/ref" of the loaded terms (undefined when none of them is in that field). */
    function vector(key) {
      var slash = key.indexOf("/"), f = fields.indexOf(key.slice(0, slash)), d = parseInt(key.slice(slash + 1), 36);
      var entries = slash < 0 || f < 0 ? undefined : slots.get(d * F + f);
      if (!entries) return undefined;
      var elements = [];
      entries.slice().sort(function (a, b) { return a[0] - b[0]; }).forEach(function (e) { elements.push(e[0], e[1]); });
      return new lunr.Vector(elements);
    }

    function index() {
      if (current) return current;
      var all = [];
      Array.from(shardTerms.keys()).sort(function (a, b) { return a - b; }).forEach(function (k) {
        all.push.apply(all, shardTerms.get(k));
      });
      var Node = nodeType(lunr, all);
      current = new lunr.Index({ invertedIndex: inverted, fieldVectors: lazyObject(vector, function () { return []; }),
                                 tokenSet: all.length ? new Node(0, all.length, 0) : new lunr.TokenSet(),
                                 fields: fields, pipeline: new lunr.Pipeline() });
      return current;
    }

    function loadRecords(refs) {
      return Promise.all(refs.map(function (ref) {
        if (records.has(ref)) return null;
        if (!recordLoading.has(ref)) {
          recordLoading.set(ref, load("search/records/" + ref + ".js").then(function () {
            records.set(ref, take(received.records, ref, "search record " + ref));
          }).finally(function () { recordLoading.delete(ref); }));
        }
        return recordLoading.get(ref);
      }));
    }

    function search(core, query) {
      function run() {
        var missing = [];
        var found = core.search(lunr, index(), query, function (ref) {
          var r = records.get(ref);
          if (r === undefined) missing.push(ref);
          return r === undefined ? null : r;
        });
        return missing.length ? loadRecords(missing).then(run) : found;
      }
      return Promise.all(shardsFor(first, core.queryTerms(query)).map(shard)).then(run);
    }

    /* Every shard and record (for tools and tests: the whole index, as toJSON gives it). */
    function loadAll() {
      var all = [], refs = [];
      for (var k = 0; k < first.length; k++) all.push(shard(k));
      for (var d = 0; d < manifest.count; d++) refs.push(d.toString(36));
      return Promise.all(all.concat([loadRecords(refs)]));
    }

    /* The serialised index (Index.toJSON()'s form) of the shards loaded: field vectors in document then
       field order, terms in order; with loadAll() done, what lunr.Index.load takes to make the whole index. */
    function toJSONLoaded() {
      var vectorsOut = [], terms = [];
      Array.from(slots.keys()).sort(function (a, b) { return a - b; }).forEach(function (slot) {
        var key = fields[slot % F] + "/" + ((slot - slot % F) / F).toString(36);
        vectorsOut.push([key, vector(key).elements]);
      });
      Array.from(shardTerms.keys()).sort(function (a, b) { return a - b; }).forEach(function (k) {
        terms.push.apply(terms, shardTerms.get(k));
      });
      return { version: manifest.version, fields: fields.slice(), fieldVectors: vectorsOut,
               invertedIndex: terms.map(function (term) { return [term, inverted[term]]; }), pipeline: [] };
    }

    return {
      index: index, search: search, records: loadRecords, loadAll: loadAll,
      toJSON: toJSONLoaded, docs: function () { var out = {}; records.forEach(function (r, ref) { out[ref] = r; }); return out; },
      record: function (ref) { return records.get(ref); },
      facts: function (ref) { return facts(parseInt(ref, 36)); }
    };
  }

  /* A load(path) for shards() in a browser: the script at base + path added to the document as a classic
     script (so it loads from file:// too), removed once it ran; a Promise, rejected when it cannot load. */
  function scriptLoader(base) {
    return function (path) {
      return new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = base + path;
        s.onload = function () { s.remove(); resolve(); };
        s.onerror = function () { s.remove(); reject(new Error("could not load " + base + path)); };
        document.head.appendChild(s);
      });
    };
  }

  return { SHARDS_FORMAT: SHARDS_FORMAT, shards: shards, scriptLoader: scriptLoader,
           receiveShard: receiveShard, receiveRecord: receiveRecord };
});
