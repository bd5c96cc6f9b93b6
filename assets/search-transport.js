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
   tests/search/test_search_transport.py compares both, deep and exact, with the Python one.

   A query is scored by scoreQuery: lunr.Index.query's algorithm (lunr 2.3.9, lunr.js's Index.prototype.query)
   over the decoded postings as typed arrays, with the same floating-point sums in the same order, so the
   same scores and order, without lunr's per-document objects (5–9 times faster at 100,000 papers);
   queries it does not take (required terms, the pipeline, only prohibited terms) go to lunr itself. */
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

  /* Facets of the manifest: document number → {venue, year, track} (frozen, one object for the documents of
     one facet; null for a number outside the index), from an array of every document's, made on the first call. */
  function factsOf(manifest) {
    var runs = numbers(manifest.runs, 0, manifest.runs.length, []), total = 0, byDoc = null;
    for (var i = 0; i < runs.length; i += 2) total += runs[i];
    if (total !== manifest.count) throw bad("facet runs do not add up");
    function fill() {
      var made = new Map(), at = 0;  /* facet number → its facts, one object each */
      byDoc = new Array(manifest.count);
      for (var r = 0; r < runs.length; r += 2) {
        var n = runs[r + 1], f = manifest.facets[n] || null;
        if (f && !made.has(n)) made.set(n, Object.freeze({ venue: f[0], year: f[1], track: f[2] }));
        for (var end = at + runs[r], value = f ? made.get(n) : null; at < end; at++) byDoc[at] = value;
      }
    }
    return function (d) {
      if (!byDoc) fill();
      return d >= 0 && d < byDoc.length ? byDoc[d] : null;
    };
  }

  /* The terms of shard k (data: what searchShard gave; first: its first term's number) decoded, each
     {term, index (lunr's _index), docs: per field an Int32Array of document numbers,
     ascending, or null, weights: per field a Float64Array of the field vectors' entries (lunr's score),
     in the same order, or null}. */
  function decodeShard(k, data, first, F) {
    var list = terms(data), v = numbers(data.postings, 0, data.postings.length, []);
    var s = numbers(data.scores, 0, data.scores.length, []), p = 0, q = 0;
    var out = list.map(function (term, i) {
      var mask = v[p++], docs = new Array(F), weights = new Array(F);
      for (var f = 0; f < F; f++) {
        docs[f] = weights[f] = null;
        if (!(mask & (1 << f))) continue;
        var n = v[p++], d = -1, ds = docs[f] = new Int32Array(n), ws = weights[f] = new Float64Array(n);
        for (var j = 0; j < n; j++) { d += v[p++] + 1; ds[j] = d; ws[j] = s[q++] / 1000; }
      }
      return { term: term, index: first + i, docs: docs, weights: weights, keyed: new Array(F) };
    });
    if (p !== v.length || q !== s.length) throw bad("shard " + k + " does not add up");
    return out;
  }

  /* The document number of a ref (base 36, lower case, as the index writes it), or -1 for another string;
     parseInt(ref, 36) took a tenth of a search page's time at 100,000 papers, asked for every result. */
  function refNumber(ref) {
    var d = 0;
    for (var i = 0; i < ref.length; i++) {
      var c = ref.charCodeAt(i), v = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 122 ? c - 87 : -1;
      if (v < 0) return -1;
      d = d * 36 + v;
    }
    return ref.length ? d : -1;
  }

  /* Is document d's ref (base 36) a canonical array index, i.e. written with digits only? */
  function digitsOnly(d) {
    do { if (d % 36 >= 10) return false; d = Math.floor(d / 36); } while (d > 0);
    return true;
  }

  /* The documents of a decoded term's field f in the order Object.keys gives lunr's posting of them (the
     refs that are array indices first, ascending; then the others, in insertion order: ascending). */
  function keyedDocs(decoded, f) {
    if (decoded.keyed[f]) return decoded.keyed[f];
    var docs = decoded.docs[f] || new Int32Array(0), digits = [], others = [];
    for (var i = 0; i < docs.length; i++) (digitsOnly(docs[i]) ? digits : others).push(docs[i]);
    return decoded.keyed[f] = digits.length && others.length ? Int32Array.from(digits.concat(others)) : docs;
  }

  var OPTIONAL = 1, PROHIBITED = 3;

  /* Can scoreQuery run query (lunr.Query)? Optional and prohibited clauses without the pipeline, not all
     prohibited; else lunr.Index.query runs it. */
  function fastEnough(query) {
    return query.clauses.length > 0 && !query.clauses.every(function (c) { return c.presence === PROHIBITED; }) &&
      query.clauses.every(function (c) { return !c.usePipeline && (c.presence === OPTIONAL || c.presence === PROHIBITED); });
  }

  /* Per clause of query its expanded terms (as lunr.Index.query expands them, through the index's token
     set), and the numbers given to the distinct terms of the clauses that are not prohibited (ids: term →
     number; terms: by number). */
  function expandClauses(lunr, index, query) {
    var ids = new Map();
    var expanded = query.clauses.map(function (clause) {
      var found = index.tokenSet.intersect(lunr.TokenSet.fromClause(clause)).toArray();
      if (clause.presence !== PROHIBITED) found.forEach(function (t) { if (!ids.has(t)) ids.set(t, ids.size); });
      return found;
    });
    return { expanded: expanded, ids: ids, terms: Array.from(ids.keys()), words: Math.max(1, Math.ceil(ids.size / 32)) };
  }

  /* lunr.Index.query's first pass: the query vectors, the documents prohibited, and the matching field
     slots (document * F + field) in the order lunr first meets them (order[0..n), typed), each with the
     bits of the terms that matched it (term number t: bit t % 32 of masks[id * W + (t >> 5)]). work.ids
     (an Int32Array of count * F, every entry -1) maps a slot to its id; the caller sets the entries used
     back to -1 (resetIds). The typed arrays are work's scratch (see scratch). */
  function matchFields(lunr, index, query, plan, decodedOf, count, work) {
    var fields = index.fields, F = fields.length, W = plan.words, scans = [];
    var m = { vectors: fields.map(function () { return new lunr.Vector(); }), prohibited: null, ids: work.ids, n: 0 };
    var ids = work.ids;
    var seen = Object.create(null), size = 0;
    query.clauses.forEach(function (clause, c) {
      plan.expanded[c].forEach(function (term) {
        var decoded = decodedOf(term), bit = plan.ids.get(term);
        clause.fields.forEach(function (name) {
          var f = fields.indexOf(name), docs = keyedDocs(decoded, f);
          if (clause.presence === PROHIBITED) {
            if (!m.prohibited) m.prohibited = new Uint8Array(count);
            for (var i = 0; i < docs.length; i++) m.prohibited[docs[i]] = 1;
            return;
          }
          m.vectors[f].upsert(decoded.index, clause.boost, function (a, b) { return a + b; });
          if (seen[term + "/" + name]) return;
          seen[term + "/" + name] = true;
          scans.push({ docs: docs, f: f, word: bit >> 5, bit: 1 << (bit & 31) });
          size += docs.length;
        });
      });
    });
    var most = Math.min(size, count * F), order = m.order = scratch(work, "order", Int32Array, most);
    var masks = m.masks = scratch(work, "masks", Int32Array, most * W).fill(0, 0, most * W);
    scans.forEach(function (scan) {
      var docs = scan.docs, f = scan.f, word = scan.word, bit = scan.bit;
      for (var j = 0; j < docs.length; j++) {
        var slot = docs[j] * F + f, id = ids[slot];
        if (id < 0) { id = ids[slot] = m.n; order[m.n++] = slot; }
        masks[id * W + word] |= bit;
      }
    });
    return m;
  }

  /* work[name]: a typed array of Type with at least size entries, kept for the next query (grown by half
     again when too small); its entries are what the last user left. */
  function scratch(work, name, Type, size) {
    var a = work[name];
    if (!a || a.length < size) a = work[name] = new Type(Math.max(size, a ? a.length + (a.length >> 1) : 1024));
    return a;
  }

  function resetIds(m) { for (var i = 0; i < m.n; i++) m.ids[m.order[i]] = -1; }

  /* Each matching slot's dot product with its field's query vector, summed in ascending term order as
     lunr.Vector.prototype.dot sums it. */
  function dotProducts(m, F, decodedAt, work) {
    var dots = scratch(work, "dots", Float64Array, m.n).fill(0, 0, m.n);
    m.vectors.forEach(function (vector, f) {
      var el = vector.elements;
      for (var i = 0; i < el.length; i += 2) {
        var decoded = decodedAt(el[i]), docs = decoded.docs[f], weights = decoded.weights[f], value = el[i + 1];
        if (!docs) continue;
        for (var j = 0; j < docs.length; j++) dots[m.ids[docs[j] * F + f]] += value * weights[j];
      }
    });
    return dots;
  }

  /* The documents of m in the order lunr first meets them, prohibited ones left out: {n, docs, scores
     (summed over a document's slots in slot order, as lunr sums them), first, next (a document's slot ids:
     first[r], then next[id] until -1)}, in work's scratch; work.at: an Int32Array of count, every entry -1,
     left so. */
  function documentsOf(m, F, dots, mags, work) {
    var n = 0, docs = scratch(work, "docs", Int32Array, m.n), scores = scratch(work, "scores", Float64Array, m.n);
    var first = scratch(work, "first", Int32Array, m.n), next = scratch(work, "next", Int32Array, m.n);
    var last = scratch(work, "last", Int32Array, m.n), at = work.at;
    for (var id = 0; id < m.n; id++) {
      var f = m.order[id] % F, d = (m.order[id] - f) / F;
      if (m.prohibited && m.prohibited[d]) continue;
      var score = dots[id] / mags[f] || 0, r = at[d];
      next[id] = -1;
      if (r >= 0) { scores[r] += score; next[last[r]] = id; last[r] = id; continue; }
      r = at[d] = n++;
      docs[r] = d; scores[r] = score; first[r] = last[r] = id;
    }
    for (var i = 0; i < n; i++) at[docs[i]] = -1;
    return { n: n, docs: docs, scores: scores, first: first, next: next };
  }

  /* {term: {field: true}} of each document of found, one object for the documents matched alike: the
     same fields through the same terms (signature: field and term bits of each slot, hashed with FNV-1a,
     compared whole on a hash hit). */
  function matchedOf(m, plan, fields, found) {
    var W = plan.words, F = fields.length, byHash = new Map(), out = new Array(found.n), sig = [];
    for (var r = 0; r < found.n; r++) {
      var h = 2166136261, k = 0;
      for (var id = found.first[r]; id >= 0; id = found.next[id]) {
        sig[k++] = m.order[id] % F;
        for (var w = 0; w < W; w++) sig[k++] = m.masks[id * W + w];
      }
      for (var i = 0; i < k; i++) h = Math.imul(h ^ sig[i], 16777619);
      var bucket = byHash.get(h) || [], hit = null;
      for (var b = 0; b < bucket.length && !hit; b++) if (sameSignature(bucket[b].sig, sig, k)) hit = bucket[b];
      if (!hit) {
        hit = { sig: sig.slice(0, k), matched: matchedTerms(m, plan, fields, found.first[r], found.next) };
        bucket.push(hit);
        byHash.set(h, bucket);
      }
      out[r] = hit.matched;
    }
    return out;
  }

  function sameSignature(a, sig, k) {
    if (a.length !== k) return false;
    for (var i = 0; i < k; i++) if (a[i] !== sig[i]) return false;
    return true;
  }

  function matchedTerms(m, plan, fields, id, next) {
    var W = plan.words, F = fields.length, matched = Object.create(null);
    for (; id >= 0; id = next[id]) {
      var field = fields[m.order[id] % F];
      for (var w = 0; w < W; w++) {
        for (var bits = m.masks[id * W + w]; bits !== 0; bits &= bits - 1) {
          var term = plan.terms[w * 32 + 31 - Math.clz32(bits & -bits)];
          (matched[term] || (matched[term] = Object.create(null)))[field] = true;
        }
      }
    }
    return matched;
  }

  /* The numbers 0..n-1 by scores, highest first, ties in ascending number (as lunr's stable sort of its
     results, made in that order, leaves them): the distinct scores sorted by the typed array's own numeric
     sort, then the numbers counted into their score's place (a comparator sort of n numbers took 5 times
     as long at 40,000). */
  function byScore(scores, n, work) {
    var values = scratch(work, "values", Float64Array, n), distinct = 0, idx = scratch(work, "idx", Int32Array, n);
    values.set(scores.subarray(0, n));
    values.subarray(0, n).sort();
    for (var i = 0; i < n; i++) {
      if (values[i] !== values[i]) return comparedByScore(scores, n);  // NaN: no order to count into
      if (i === 0 || values[i] !== values[distinct - 1]) values[distinct++] = values[i];
    }
    var rank = scratch(work, "rank", Int32Array, n), start = scratch(work, "start", Int32Array, distinct + 1).fill(0, 0, distinct + 1);
    for (i = 0; i < n; i++) {
      var lo = 0, hi = distinct, x = scores[i];
      while (lo < hi) { var mid = (lo + hi) >>> 1; if (values[mid] < x) lo = mid + 1; else hi = mid; }
      rank[i] = distinct - 1 - lo;
      start[rank[i] + 1]++;
    }
    for (var k = 0; k < distinct; k++) start[k + 1] += start[k];
    for (i = 0; i < n; i++) idx[start[rank[i]]++] = i;
    return idx;
  }

  function comparedByScore(scores, n) {
    var idx = new Int32Array(n);
    for (var i = 0; i < n; i++) idx[i] = i;
    return idx.sort(function (a, b) { return (scores[b] - scores[a]) || (a - b); });
  }

  /* lunr.Index.query(fn) over decoded terms (decodedOf(term), decodedAt(lunr's _index)), with the same
     results, scores and order: [{ref, score, matched: {term: {field: true}}, titleGroups, terms, order}]
     (matched in place of lunr's matchData, shared by documents matched alike; the last three for
     core.search to fill in, so that the hit is its result). Queries fastEnough does not take go to index.query.
     work: {ids: Int32Array(count * F), at: Int32Array(count) (their entries -1), refs: []} and the scratch
     arrays, reused between queries (fresh typed arrays of 100,000 entries for every query cost more in
     garbage collection than the scoring). */
  function scoreQuery(lunr, index, decodedOf, decodedAt, count, fn, work) {
    var query = new lunr.Query(index.fields);
    fn.call(query, query);
    if (!fastEnough(query)) return index.query(function (q) { query.clauses.forEach(function (c) { q.clause(c); }); });
    var fields = index.fields, F = fields.length, plan = expandClauses(lunr, index, query);
    var m = matchFields(lunr, index, query, plan, decodedOf, count, work), found, matched;
    try {
      var mags = m.vectors.map(function (v) { return v.magnitude(); });
      found = documentsOf(m, F, dotProducts(m, F, decodedAt, work), mags, work);
      matched = matchedOf(m, plan, fields, found);
    } finally {
      resetIds(m);  /* work.ids all -1 again, whatever happened, for the next query */
    }
    var sorted = byScore(found.scores, found.n, work), results = new Array(found.n), refs = work.refs;
    for (var i = 0; i < found.n; i++) {
      var r = sorted[i], d = found.docs[r];
      results[i] = { ref: refs[d] || (refs[d] = d.toString(36)), score: found.scores[r], matched: matched[r],
                     titleGroups: 0, terms: null, order: 0 };  /* the fields core.search gives its results */
    }
    return results;
  }

  /* lunr's posting of a decoded term over fields: {_index, field: {ref: {}}}. */
  function lunrPosting(dt, fields) {
    var out = { _index: dt.index };
    fields.forEach(function (name, f) {
      var docs = {}, ds = dt.docs[f] || [];
      for (var j = 0; j < ds.length; j++) docs[ds[j].toString(36)] = EMPTY;
      out[name] = docs;
    });
    return out;
  }

  /* The loaded terms of an index of `count` documents over fields, as lunr reads them: add(k, decoded terms
     of shard k); has(k); index() (a lunr.Index: postings made when lunr first reads one, field vectors from
     the loaded terms' entries, made when first read, a token set that is a trie over the sorted terms);
     scorer() (what core.search queries: index()'s query through scoreQuery); toJSON(version). */
  function loadedTerms(lunr, fields, count) {
    var F = fields.length, shardTerms = new Map(), decoded = new Map(), byIndex = new Map();
    var inverted = Object.create(null), slots = null, current = null;

    function add(k, list) {
      list.forEach(function (dt) {
        decoded.set(dt.term, dt);
        byIndex.set(dt.index, dt);
        Object.defineProperty(inverted, dt.term, { configurable: true, enumerable: true, get: function () {
          var value = lunrPosting(dt, fields);
          Object.defineProperty(inverted, dt.term, { value: value, writable: true, enumerable: true, configurable: true });
          return value;
        } });
      });
      shardTerms.set(k, list.map(function (dt) { return dt.term; }));
      slots = current = null;
    }

    /* slot (document * F + field) → [[term index, score], ...] of the loaded terms, made when first read. */
    function slotEntries() {
      if (slots) return slots;
      slots = new Map();
      decoded.forEach(function (dt) {
        for (var f = 0; f < F; f++) {
          var ds = dt.docs[f] || [];
          for (var j = 0; j < ds.length; j++) {
            var slot = ds[j] * F + f, entries = slots.get(slot);
            if (!entries) slots.set(slot, entries = []);
            entries.push([dt.index, dt.weights[f][j]]);
          }
        }
      });
      return slots;
    }

    /* The field vector "field/ref" of the loaded terms (undefined when none of them is in that field). */
    function vector(key) {
      var slash = key.indexOf("/"), f = fields.indexOf(key.slice(0, slash)), d = parseInt(key.slice(slash + 1), 36);
      var entries = slash < 0 || f < 0 ? undefined : slotEntries().get(d * F + f);
      if (!entries) return undefined;
      var elements = [];
      entries.slice().sort(function (a, b) { return a[0] - b[0]; }).forEach(function (e) { elements.push(e[0], e[1]); });
      return new lunr.Vector(elements);
    }

    function allTerms() {
      var all = [];
      Array.from(shardTerms.keys()).sort(function (a, b) { return a - b; }).forEach(function (k) {
        all.push.apply(all, shardTerms.get(k));
      });
      return all;
    }

    function index() {
      if (current) return current;
      var all = allTerms(), Node = nodeType(lunr, all);
      current = new lunr.Index({ invertedIndex: inverted, fieldVectors: lazyObject(vector, function () { return []; }),
                                 tokenSet: all.length ? new Node(0, all.length, 0) : new lunr.TokenSet(),
                                 fields: fields, pipeline: new lunr.Pipeline() });
      return current;
    }

    var work = null;
    function scorer() {
      var loaded = index();
      work = work || { ids: new Int32Array(count * F).fill(-1), at: new Int32Array(count).fill(-1), refs: [] };
      return { query: function (fn) {
        return scoreQuery(lunr, loaded, function (t) { return decoded.get(t); }, function (i) { return byIndex.get(i); },
                          count, fn, work);
      } };
    }

    /* The serialised index (Index.toJSON()'s form) of the terms loaded: field vectors in document then field
       order, terms in order; with every shard loaded, what lunr.Index.load takes to make the whole index. */
    function toJSON(version) {
      var vectorsOut = [];
      Array.from(slotEntries().keys()).sort(function (a, b) { return a - b; }).forEach(function (slot) {
        var key = fields[slot % F] + "/" + ((slot - slot % F) / F).toString(36);
        vectorsOut.push([key, vector(key).elements]);
      });
      return { version: version, fields: fields.slice(), fieldVectors: vectorsOut,
               invertedIndex: allTerms().map(function (term) { return [term, inverted[term]]; }), pipeline: [] };
    }

    return { add: add, has: function (k) { return shardTerms.has(k); }, index: index, scorer: scorer, toJSON: toJSON };
  }

  /* The sharded index of manifest (window.SEARCH_SHARDS, written by site_builder/search/shards.py,
     whose docstring gives the format). load(path) loads the site-root relative script path (its
     searchShard/searchRecord call done) and returns a Promise. Returns {index() (a lunr.Index over the
     terms loaded: a query whose terms are loaded, see shardsFor, gets the whole index's results, scores
     and order), record(ref) (a loaded record or undefined), records(refs) → Promise (loads them), facts(ref),
     search(core, query) → Promise of core.search's result (the query's shards loaded, and the
     records its phrases and exclusions check; scored by scoreQuery), loadAll(), toJSON(), docs() (for
     tools and tests)}. Throws Error on another format. */
  function shards(lunr, manifest, load) {
    if (!manifest || manifest.format !== SHARDS_FORMAT) throw bad("unknown format " + (manifest && manifest.format));
    var fields = manifest.fields, first = manifest.first, loaded = loadedTerms(lunr, fields, manifest.count);
    var start = numbers(manifest.start, 0, manifest.start.length, []), facts = factsOf(manifest);
    var loading = new Map(), records = new Map(), recordLoading = new Map();

    function shard(k) {
      if (loaded.has(k)) return Promise.resolve();
      if (!loading.has(k)) {
        loading.set(k, load("search/terms/" + k + ".js").then(function () {
          loaded.add(k, decodeShard(k, take(received.shards, k, "search shard " + k), start[k], fields.length));
        }).finally(function () { loading.delete(k); }));
      }
      return loading.get(k);
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
        var found = core.search(lunr, loaded.scorer(), query, function (ref) {
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

    return {
      index: loaded.index, search: search, records: loadRecords, loadAll: loadAll,
      toJSON: function () { return loaded.toJSON(manifest.version); },
      docs: function () { var out = {}; records.forEach(function (r, ref) { out[ref] = r; }); return out; },
      record: function (ref) { return records.get(ref); },
      facts: function (ref) { return facts(refNumber(ref)); }
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
