/* SearchTransport: unpacks search-index.js (window.SEARCH_DATA, written by site_builder/transport.py,
   whose docstring gives the format) into a lunr.js 2.3.9 index. Shared by the browser
   (window.SearchTransport) and Node (require("./assets/search-transport.js")).

   load(lunr, data) builds the lunr.Index directly: the same terms, postings, field vectors and
   scores as lunr.Index.load(<the index serialised by site_builder/indexer.py>), and a token set
   (a trie) holding the same terms with the same edges in the same order, so every query gives the
   same results in the same order. toJSON(lunr, data) gives that serialised index (Index.toJSON);
   tests/test_search_transport.py compares it, deep and exact, with the Python one. */
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.SearchTransport = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var FORMAT = "site-lunr-pack-1";
  var CONT = 42;
  var DIGITS = "";
  for (var c = 0x20; c < 0x7f; c++) if ("'\\<".indexOf(String.fromCharCode(c)) < 0) DIGITS += String.fromCharCode(c);
  var FINAL = DIGITS.length - CONT;
  /* Character code → digit value (continuation digits 0..CONT-1, final digits CONT..), 255 = not a digit. */
  var VALUE = new Uint8Array(128).fill(255);
  for (var i = 0; i < DIGITS.length; i++) VALUE[DIGITS.charCodeAt(i)] = i;

  /* The integers packed in text (see transport.py), into a Float64Array of length count. */
  function numbers(text, count) {
    var out = new Float64Array(count), n = 0, v = 0, len = text.length;
    for (var p = 0; p < len; p++) {
      var d = VALUE[text.charCodeAt(p)];
      if (d < CONT) v = v * CONT + d;
      else if (d !== 255) { out[n++] = v * FINAL + d - CONT; v = 0; }
      else throw new Error("search index: bad character at " + p);
    }
    if (n !== count) throw new Error("search index: " + n + " numbers where " + count + " expected");
    return out;
  }

  /* The packed index as flat tables: {fields, refs, terms, groupStart, groupEnd, doc, score}; the
     entries of term t in field f are groupStart[t*F+f] .. groupEnd[t*F+f]-1, documents ascending;
     score[e] is lunr's score (the packed integer / 1000, the same double as in the serialised index). */
  function unpack(data) {
    if (!data || data.format !== FORMAT) throw new Error("search index: unknown format " + (data && data.format));
    var fields = data.fields, F = fields.length, nTerms = data.counts[0], nEntries = data.counts[1];
    var lengths = numbers(data.lengths, 2 * nTerms), suffixes = data.suffixes;
    var terms = new Array(nTerms), prev = "", at = 0;
    for (var t = 0; t < nTerms; t++) {
      var rest = lengths[2 * t + 1];
      prev = prev.slice(0, lengths[2 * t]) + suffixes.slice(at, at + rest);
      at += rest;
      terms[t] = prev;
    }
    var values = numbers(data.postings, data.counts[2]);
    var groupStart = new Int32Array(nTerms * F), groupEnd = new Int32Array(nTerms * F);
    var doc = new Int32Array(nEntries), score = new Float64Array(nEntries);
    var p = 0, e = 0;
    for (t = 0; t < nTerms; t++) {
      var mask = values[p++];
      for (var f = 0; f < F; f++) {
        var g = t * F + f;
        groupStart[g] = groupEnd[g] = e;
        if (!(mask & (1 << f))) continue;
        var n = values[p++], d = -1;
        for (var k = 0; k < n; k++) doc[e + k] = d = d + 1 + values[p + k];
        p += n;
        for (k = 0; k < n; k++) score[e + k] = values[p + k] / 1000;
        p += n;
        e += n;
        groupEnd[g] = e;
      }
    }
    if (e !== nEntries || p !== values.length) throw new Error("search index: postings do not add up");
    return { version: data.version, fields: fields, refs: data.refs, terms: terms, groupStart: groupStart,
             groupEnd: groupEnd, doc: doc, score: score };
  }

  /* Field vectors as [[fieldRef, elements]...] in document then field order, elements [termIndex, score, ...]
     by term: the entries (term-major) regrouped by (document, field). */
  function vectors(u) {
    var F = u.fields.length, nRows = u.refs.length * F, size = new Int32Array(nRows + 1), e, t, f, g;
    for (g = 0; g < u.groupStart.length; g++) {
      f = g % F;
      for (e = u.groupStart[g]; e < u.groupEnd[g]; e++) size[u.doc[e] * F + f] += 2;
    }
    var rows = new Array(nRows), fill = new Int32Array(nRows);
    for (var r = 0; r < nRows; r++) rows[r] = size[r] ? new Array(size[r]) : null;
    for (g = 0; g < u.groupStart.length; g++) {
      t = (g - (f = g % F)) / F;
      for (e = u.groupStart[g]; e < u.groupEnd[g]; e++) {
        var row = u.doc[e] * F + f, els = rows[row], at = fill[row];
        els[at] = t;
        els[at + 1] = u.score[e];
        fill[row] = at + 2;
      }
    }
    var out = [];
    for (r = 0; r < nRows; r++) if (rows[r]) out.push([u.fields[r % F] + "/" + u.refs[(r - r % F) / F], rows[r]]);
    return out;
  }

  /* The posting of term t: {_index: t, field: {ref: {}}...}, every field present. */
  function posting(u, t, meta) {
    var F = u.fields.length, out = { _index: t };
    for (var f = 0; f < F; f++) {
      var refs = {}, g = t * F + f;
      for (var e = u.groupStart[g]; e < u.groupEnd[g]; e++) refs[u.refs[u.doc[e]]] = meta ? meta() : {};
      out[u.fields[f]] = refs;
    }
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

  /* A node of the token set over the sorted terms[lo..hi-1], which all start with the same prefix of
     `depth` code units: final when that prefix is itself a term (then terms[lo]), edges made on first
     use, one per next code unit in ascending order (the order lunr.TokenSet.Builder inserts them). */
  function lazyNodeType(lunr, terms) {
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
          var c = terms[i].charAt(depth), j = i + 1;
          /* terms starting with prefix + c form a run; it ends at the first term >= prefix + (c + 1) */
          var stop = terms[i].slice(0, depth) + String.fromCharCode(c.charCodeAt(0) + 1);
          j = c.charCodeAt(0) === 0xffff ? hi : lowerBound(terms, stop, j, hi);
          edges[c] = new Node(i, j, depth + 1);
          i = j;
        }
        Object.defineProperty(this, "edges", { value: edges, writable: true, enumerable: true, configurable: true });
        return edges;
      }
    });
    return Node;
  }

  /* A read-only object view: key → make(key) (cached; undefined when make gives undefined), listing keys(). */
  function lazyObject(make, keys, proto) {
    var cache = new Map();
    function get(key) {
      if (typeof key !== "string") return undefined;
      if (cache.has(key)) return cache.get(key);
      var value = make(key);
      cache.set(key, value);
      return value;
    }
    return new Proxy(proto === null ? Object.create(null) : {}, {
      get: function (target, key) { var v = get(key); return v === undefined && proto !== null ? target[key] : v; },
      has: function (target, key) { return get(key) !== undefined; },
      ownKeys: function () { return keys(); },
      getOwnPropertyDescriptor: function (target, key) {
        var v = get(key);
        return v === undefined ? undefined : { value: v, writable: true, enumerable: true, configurable: true };
      },
      set: function () { return false; },
      deleteProperty: function () { return false; },
      defineProperty: function () { return false; }
    });
  }

  var EMPTY = {};
  function shared() { return EMPTY; }

  /* The lunr.Index of data (window.SEARCH_DATA). Throws Error on data of another format or
     inconsistent counts. Postings, field vectors and token-set nodes are made when a query first
     reads them (the objects lunr.Index.load would hold, made on demand), so loading costs only
     the unpacking. */
  function load(lunr, data) {
    var u = unpack(data), F = u.fields.length, terms = u.terms, nTerms = terms.length;
    /* Entries regrouped by (document, field), terms ascending within: a counting sort. */
    var nRows = u.refs.length * F, rowStart = new Int32Array(nRows + 1), g, e, t;
    for (g = 0; g < u.groupStart.length; g++) {
      var f = g % F;
      for (e = u.groupStart[g]; e < u.groupEnd[g]; e++) rowStart[u.doc[e] * F + f + 1]++;
    }
    for (var r = 0; r < nRows; r++) rowStart[r + 1] += rowStart[r];
    var fill = rowStart.slice(0, nRows), rowTerm = new Int32Array(u.doc.length), rowEntry = new Int32Array(u.doc.length);
    for (g = 0; g < u.groupStart.length; g++) {
      f = g % F;
      t = (g - f) / F;
      for (e = u.groupStart[g]; e < u.groupEnd[g]; e++) {
        var at = fill[u.doc[e] * F + f]++;
        rowTerm[at] = t;
        rowEntry[at] = e;
      }
    }
    var fieldNumber = Object.create(null), docNumber = new Map();
    u.fields.forEach(function (name, i) { fieldNumber[name] = i; });
    u.refs.forEach(function (ref, i) { docNumber.set(ref, i); });
    var invertedIndex = lazyObject(function (term) {
      var t = lowerBound(terms, term, 0, nTerms);
      return t < nTerms && terms[t] === term ? posting(u, t, shared) : undefined;
    }, function () { return terms.slice(); }, null);
    var fieldVectors = lazyObject(function (key) {
      var slash = key.indexOf("/"), f = fieldNumber[key.slice(0, slash)], d = docNumber.get(key.slice(slash + 1));
      if (slash < 0 || f === undefined || d === undefined) return undefined;
      var row = d * F + f, a = rowStart[row], b = rowStart[row + 1];
      if (a === b) return undefined;
      var elements = new Array(2 * (b - a));
      for (var i = a; i < b; i++) { elements[2 * (i - a)] = rowTerm[i]; elements[2 * (i - a) + 1] = u.score[rowEntry[i]]; }
      return new lunr.Vector(elements);
    }, function () {
      var keys = [];
      for (var row = 0; row < nRows; row++) {
        if (rowStart[row] < rowStart[row + 1]) keys.push(u.fields[row % F] + "/" + u.refs[(row - row % F) / F]);
      }
      return keys;
    }, {});
    var Node = lazyNodeType(lunr, terms);
    var tokenSet = nTerms ? new Node(0, nTerms, 0) : new lunr.TokenSet();
    return new lunr.Index({ invertedIndex: invertedIndex, fieldVectors: fieldVectors, tokenSet: tokenSet,
                            fields: u.fields, pipeline: new lunr.Pipeline() });
  }

  /* The serialised index (what lunr's Index.toJSON() gives and lunr.Index.load takes) of data. */
  function toJSON(data) {
    var u = unpack(data);
    return { version: u.version, fields: u.fields.slice(), fieldVectors: vectors(u),
             invertedIndex: u.terms.map(function (term, t) { return [term, posting(u, t, null)]; }), pipeline: [] };
  }

  return { FORMAT: FORMAT, DIGITS: DIGITS, CONT: CONT, unpack: unpack, load: load, toJSON: toJSON };
});
