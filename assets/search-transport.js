/* SearchTransport: reads search-index.js (window.SEARCH_DATA, written by site_builder/transport.py,
   whose docstring gives the format) as a lunr.js 2.3.9 index. Shared by the browser
   (window.SearchTransport) and Node (require("./assets/search-transport.js")).

   load(lunr, data) makes the lunr.Index directly. Its invertedIndex and fieldVectors are read-only
   views that unpack a term's posting or a field vector when lunr first reads it, and its token set
   is a trie over the sorted terms whose nodes make their edges when first read, with the same
   edges in the same order as lunr.TokenSet.Builder's; so every query gives the results, scores and
   order of lunr.Index.load(<the index serialised by site_builder/indexer.py>), while loading costs
   only the term list. toJSON(data) gives that serialised index (Index.toJSON());
   tests/test_search_transport.py compares both, deep and exact, with the Python one. */
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.SearchTransport = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var FORMAT = "site-lunr-pack-2";
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

  /* Part boundaries from packed sizes: an Int32Array of count + 1 offsets into the packed text. */
  function offsets(sizes, count, total) {
    var list = numbers(sizes, 0, sizes.length, []), out = new Int32Array(count + 1);
    if (list.length !== count) throw bad(list.length + " sizes where " + count + " expected");
    for (var k = 0; k < count; k++) out[k + 1] = out[k] + list[k];
    if (out[count] !== total) throw bad("sizes do not add up");
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

  /* The packed index of data, read on demand: {version, fields, refs, terms, posting(t, meta),
     vector(slot)}. posting(t, meta) is term t's posting {_index: t, field: {ref: meta()}...}, every
     field present; vector(slot) the elements [term, score, ...] of field slot % F of document
     floor(slot / F), or null when that field is empty. */
  function reader(data) {
    if (!data || data.format !== FORMAT) throw bad("unknown format " + (data && data.format));
    var fields = data.fields, F = fields.length, refs = data.refs, list = terms(data);
    var postingAt = offsets(data.postingSizes, list.length, data.postings.length);
    var vectorAt = offsets(data.vectorSizes, refs.length * F, data.vectors.length);
    function posting(t, meta) {
      var v = numbers(data.postings, postingAt[t], postingAt[t + 1], []), p = 1, out = { _index: t };
      for (var f = 0; f < F; f++) {
        var docs = {};
        if (v[0] & (1 << f)) {
          var n = v[p++], d = -1;
          for (var k = 0; k < n; k++) docs[refs[d += v[p++] + 1]] = meta();
        }
        out[fields[f]] = docs;
      }
      if (p !== v.length) throw bad("posting of " + list[t] + " does not add up");
      return out;
    }
    function vector(slot) {
      if (vectorAt[slot] === vectorAt[slot + 1]) return null;
      var v = numbers(data.vectors, vectorAt[slot], vectorAt[slot + 1], []), t = -1;
      for (var k = 0; k < v.length; k += 2) {
        v[k] = t += v[k] + 1;
        v[k + 1] = v[k + 1] / 1000;
      }
      return v;
    }
    return { version: data.version, fields: fields, refs: refs, terms: list, posting: posting, vector: vector };
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
     and whose keys are keys(); on a null-prototype target (lunr's invertedIndex is one) or a plain one. */
  function lazyObject(make, keys, plain) {
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
    return new Proxy(plain ? {} : Object.create(null), {
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
  function shared() { return EMPTY; }
  function fresh() { return {}; }

  /* The lunr.Index of data (window.SEARCH_DATA), made as the module comment says. Throws Error on
     data of another format or whose parts do not add up. */
  function load(lunr, data) {
    var r = reader(data), F = r.fields.length, terms = r.terms;
    var fieldNumber = new Map(), docNumber = new Map();
    r.fields.forEach(function (name, i) { fieldNumber.set(name, i); });
    r.refs.forEach(function (ref, i) { docNumber.set(ref, i); });
    var invertedIndex = lazyObject(function (term) {
      var t = lowerBound(terms, term, 0, terms.length);
      return t < terms.length && terms[t] === term ? r.posting(t, shared) : undefined;
    }, function () { return terms.slice(); }, false);
    var fieldVectors = lazyObject(function (key) {
      var slash = key.indexOf("/"), f = fieldNumber.get(key.slice(0, slash)), d = docNumber.get(key.slice(slash + 1));
      if (slash < 0 || f === undefined || d === undefined) return undefined;
      var elements = r.vector(d * F + f);
      return elements === null ? undefined : new lunr.Vector(elements);
    }, function () {
      var keys = [];
      for (var slot = 0; slot < r.refs.length * F; slot++) {
        if (r.vector(slot) !== null) keys.push(r.fields[slot % F] + "/" + r.refs[(slot - slot % F) / F]);
      }
      return keys;
    }, true);
    var Node = nodeType(lunr, terms);
    return new lunr.Index({ invertedIndex: invertedIndex, fieldVectors: fieldVectors,
                            tokenSet: terms.length ? new Node(0, terms.length, 0) : new lunr.TokenSet(),
                            fields: r.fields, pipeline: new lunr.Pipeline() });
  }

  /* The serialised index (what lunr's Index.toJSON() gives and lunr.Index.load takes) of data. */
  function toJSON(data) {
    var r = reader(data), F = r.fields.length, vectors = [];
    for (var slot = 0; slot < r.refs.length * F; slot++) {
      var v = r.vector(slot);
      if (v !== null) vectors.push([r.fields[slot % F] + "/" + r.refs[(slot - slot % F) / F], v]);
    }
    return { version: r.version, fields: r.fields.slice(), fieldVectors: vectors,
             invertedIndex: r.terms.map(function (term, t) { return [term, r.posting(t, fresh)]; }), pipeline: [] };
  }

  /* The result records of data: a function ref → {id, title, url, authors, venue, year, track, abstract}
     (undefined for an unknown ref), parsing each record when first asked for. */
  function records(data) {
    var lines = null, number = null, made = new Map();
    return function (ref) {
      if (made.has(ref)) return made.get(ref);
      if (lines === null) {
        lines = data.records.split("\n");
        number = new Map();
        data.refs.forEach(function (r, i) { number.set(r, i); });
      }
      var i = number.get(ref), record = i === undefined ? undefined : JSON.parse(lines[i]);
      made.set(ref, record);
      return record;
    };
  }

  /* Every result record of data as {ref: record}. */
  function docs(data) {
    var get = records(data), out = {};
    data.refs.forEach(function (ref) { out[ref] = get(ref); });
    return out;
  }

  return { FORMAT: FORMAT, DIGITS: DIGITS, CONT: CONT, load: load, toJSON: toJSON, records: records, docs: docs };
});
