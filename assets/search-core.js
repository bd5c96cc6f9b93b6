/* SearchCore: the query side of the site's search, shared by the browser (window.SearchCore)
   and Node (require("./assets/search-core.js")).

   Tokenizer and normaliser are the same rules as site_builder/tokenize.py (the index side);
   tests/test_search_tokenize.py checks the two agree. Queries go to a lunr.js 2.3.9 index
   through index.query() (never the query-string parser), so no typed character can throw.

   Query syntax: words separated by spaces; every word must match (a title, author, track or
   abstract word starting with it, from 3 characters on); `title:word`, `author:name`,
   `abstract:word`, `track:word` restrict a word to one field. Results whose title matches more
   of the words come first, then lunr's BM25 score. */
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.SearchCore = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var CJK_RANGES = [
    [0x1100, 0x11FF], [0x2E80, 0x2FDF], [0x3005, 0x3007], [0x3021, 0x3029], [0x3031, 0x3035],
    [0x3038, 0x303C], [0x3040, 0x31FF], [0x3400, 0x4DBF], [0x4E00, 0x9FFF], [0xA960, 0xA97F],
    [0xAC00, 0xD7FF], [0xF900, 0xFAFF], [0xFF66, 0xFFDC], [0x16FE0, 0x16FFF], [0x1B000, 0x1B2FF],
    [0x20000, 0x2FA1F], [0x30000, 0x323AF]
  ];
  var CONNECTORS = "-_./'+\u2010\u2011\u2012\u2013\u2014\u2015\u2019\u2212";
  var STOP_WORDS = Object.create(null);
  ("a able about across after all almost also am among an and any are as at be because been but by can " +
   "cannot could dear did do does either else ever every for from get got had has have he her hers him his " +
   "how however i if in into is it its just least let like likely may me might most must my neither no nor " +
   "not of off often on only or other our own rather said say says she should since so some than that the " +
   "their them then there these they this tis to too twas us wants was we were what when where which while " +
   "who whom why will with would yet you your").split(" ").forEach(function (w) { STOP_WORDS[w] = true; });
  var PREFIX_MIN = 3;
  /* Typed field names → index fields. */
  var FIELD_NAMES = { title: "title", author: "authors", authors: "authors", abstract: "abstract", track: "track" };

  function hex(n) { return "\\u{" + n.toString(16) + "}"; }
  var CJK_CLASS = CJK_RANGES.map(function (r) { return hex(r[0]) + "-" + hex(r[1]); }).join("");
  var CONN = CONNECTORS.replace(/[-\\\]^\/.+]/g, "\\$&");
  var CJK_RUN = new RegExp("[" + CJK_CLASS + "]+", "gu");
  var CJK_CHAR = new RegExp("^[" + CJK_CLASS + "]$", "u");
  var HAS_CJK = new RegExp("[" + CJK_CLASS + "]", "u");
  var COMPOUND = new RegExp("[\\p{L}\\p{N}]+(?:[" + CONN + "][\\p{L}\\p{N}]+)*", "gu");
  var CONNECTOR = new RegExp("[" + CONN + "]", "u");
  var DIGIT_CUT = /(?<=\P{Nd})(?=\p{Nd})/u;
  var ASCII_WORD = /^[a-z]+$/;
  var ASCII = /^[\x00-\x7f]*$/;
  var MARKS = /\p{M}/gu;

  /* Step 1: NFKC, lower case, combining marks removed, NFC (ASCII: lower case only). */
  function normalise(text) {
    text = String(text);
    if (ASCII.test(text)) return text.toLowerCase();
    return text.normalize("NFKC").toLowerCase().normalize("NFD").replace(MARKS, "").normalize("NFC");
  }

  function endsWith(s, suffixes) {
    for (var i = 0; i < suffixes.length; i++) if (s.slice(-suffixes[i].length) === suffixes[i]) return true;
    return false;
  }

  /* Step 5: Harman's S stemmer on ASCII letter tokens longer than 3. */
  function stem(token) {
    if (token.length <= 3 || !ASCII_WORD.test(token)) return token;
    if (endsWith(token, ["ies"]) && !endsWith(token, ["eies", "aies"])) return token.slice(0, -3) + "y";
    if (endsWith(token, ["es"]) && !endsWith(token, ["aes", "ees", "oes"])) return token.slice(0, -1);
    if (endsWith(token, ["s"]) && !endsWith(token, ["us", "ss"])) return token.slice(0, -1);
    return token;
  }

  function term(token) { return STOP_WORDS[token] === true ? null : stem(token); }

  function codePoints(s) { return Array.from(s); }

  function cjkGrams(run) {
    var cps = codePoints(run), out = [];
    if (cps.length < 2) return [run];
    for (var i = 0; i + 1 < cps.length; i++) out.push(cps[i] + cps[i + 1]);
    return out;
  }

  function compoundParts(compound) {
    var runs = compound.split(CONNECTOR), parts = [];
    runs.forEach(function (r) { parts.push.apply(parts, r.split(DIGIT_CUT)); });
    return { runs: runs, parts: parts };
  }

  function split(text) {
    var norm = normalise(text);
    var cjk = norm.match(CJK_RUN) || [];
    if (cjk.length) norm = norm.replace(CJK_RUN, " ");
    return { cjk: cjk, compounds: norm.match(COMPOUND) || [] };
  }

  /* Every index term of text, repeats kept: the same list as tokenize.index_tokens. */
  function indexTokens(text) {
    var s = split(text), raw = [];
    s.cjk.forEach(function (run) { raw.push.apply(raw, cjkGrams(run)); });
    s.compounds.forEach(function (compound) {
      var cp = compoundParts(compound);
      if (cp.runs.length === 1 && cp.parts.length === 1) { raw.push(compound); return; }
      cp.runs.forEach(function (r) {
        var cut = r.split(DIGIT_CUT);
        raw.push.apply(raw, cut);
        if (cut.length > 1) raw.push(r);
      });
      if (cp.runs.length > 1) raw.push(cp.runs.join(""));
    });
    var out = [];
    raw.forEach(function (t) { var x = term(t); if (x) out.push(x); });
    return out;
  }

  /* Requirements of one typed word: [[alternative terms...]...]; the same as tokenize.query_alternatives. */
  function queryAlternatives(word) {
    var s = split(word), reqs = [];
    s.cjk.forEach(function (run) { reqs.push([cjkGrams(run)]); });
    s.compounds.forEach(function (compound) {
      var parts = compoundParts(compound).parts, alts = [];
      if (parts.length > 1) {
        var joined = term(parts.join(""));
        if (joined) alts.push([joined]);
      }
      var kept = parts.map(term).filter(Boolean);
      if (kept.length) alts.push(kept);
      if (alts.length) reqs.push(alts);
    });
    return reqs;
  }

  function isPrefixToken(token) {
    var n = codePoints(token).length;
    return n >= PREFIX_MIN || (n === 1 && CJK_CHAR.test(token));
  }

  /* The typed query as groups: [{word, field (index field or null), reqs}], words that yield no term dropped. */
  function parseQuery(query) {
    var groups = [];
    String(query == null ? "" : query).split(/\s+/).forEach(function (word) {
      if (!word) return;
      var field = null, m = /^([A-Za-z]+):(.*)$/.exec(word);
      if (m && Object.prototype.hasOwnProperty.call(FIELD_NAMES, m[1].toLowerCase())) {
        field = FIELD_NAMES[m[1].toLowerCase()];
        word = m[2];
      }
      var reqs = queryAlternatives(word);
      if (reqs.length) groups.push({ word: word, field: field, reqs: reqs });
    });
    return groups;
  }

  function groupTerms(group) {
    var seen = Object.create(null), out = [];
    group.reqs.forEach(function (alts) {
      alts.forEach(function (alt) {
        alt.forEach(function (t) { if (!seen[t]) { seen[t] = true; out.push(t); } });
      });
    });
    return out;
  }

  /* matched: {term: {field: true}}; does some matched term, in one of fields, match token t? */
  function tokenMatched(t, matched, fields) {
    var prefix = isPrefixToken(t);
    for (var m in matched) {
      if (m === t || (prefix && m.lastIndexOf(t, 0) === 0)) {
        for (var f in matched[m]) if (!fields || fields.indexOf(f) >= 0) return true;
      }
    }
    return false;
  }

  function groupMatched(group, matched, fields) {
    if (group.field) {
      if (fields && fields.indexOf(group.field) < 0) return false;
      fields = [group.field];
    }
    return group.reqs.every(function (alts) {
      return alts.some(function (alt) {
        return alt.every(function (t) { return tokenMatched(t, matched, fields); });
      });
    });
  }

  /* Search a loaded lunr index: every group must match. Returns {groups, results: [{ref, score,
     titleGroups, terms}]}, results sorted by title matches then score. Never throws on any query. */
  function search(lunr, index, query) {
    var groups = parseQuery(query);
    if (!groups.length) return { groups: groups, results: [] };
    var added = Object.create(null);
    var hits = index.query(function (q) {
      groups.forEach(function (g) {
        groupTerms(g).forEach(function (t) {
          var key = t + "\u0000" + (g.field || "");
          if (added[key]) return;
          added[key] = true;
          var exact = { usePipeline: false, boost: 10 };
          if (g.field) exact.fields = [g.field];
          q.term(t, exact);
          if (isPrefixToken(t)) {
            var wild = { usePipeline: false, boost: 1, wildcard: lunr.Query.wildcard.TRAILING };
            if (g.field) wild.fields = [g.field];
            q.term(t, wild);
          }
        });
      });
    });
    var results = [];
    hits.forEach(function (hit) {
      var matched = Object.create(null), meta = hit.matchData.metadata;
      Object.keys(meta).forEach(function (m) {
        matched[m] = Object.create(null);
        Object.keys(meta[m]).forEach(function (f) { matched[m][f] = true; });
      });
      if (!groups.every(function (g) { return groupMatched(g, matched, null); })) return;
      var titleGroups = groups.filter(function (g) { return groupMatched(g, matched, ["title"]); }).length;
      results.push({ ref: hit.ref, score: hit.score, titleGroups: titleGroups, terms: Object.keys(matched) });
    });
    results.forEach(function (r, i) { r.order = i; });
    results.sort(function (a, b) { return (b.titleGroups - a.titleGroups) || (b.score - a.score) || (a.order - b.order); });
    return { groups: groups, results: results };
  }

  var EDGE = /^([^\p{L}\p{N}]*)([\s\S]*?)([^\p{L}\p{N}]*)$/u;
  var PIECE = /([\p{L}\p{N}]+)/u;

  /* Cut text into [[piece, isMatch], ...] for display: words (split at white space) any of whose
     terms match a query term, and CJK stretches equal to a typed CJK run. */
  function highlight(text, groups) {
    text = String(text == null ? "" : text);
    var terms = [], cjkRuns = [];
    groups.forEach(function (g) {
      groupTerms(g).forEach(function (t) { if (!HAS_CJK.test(t)) terms.push(t); });
      (normalise(g.word).match(CJK_RUN) || []).forEach(function (r) { cjkRuns.push(r); });
    });
    cjkRuns.sort(function (a, b) { return b.length - a.length; });
    var out = [];
    function push(piece, hit) {
      if (!piece) return;
      var last = out[out.length - 1];
      if (last && last[1] === hit) last[0] += piece; else out.push([piece, hit]);
    }
    function pushCjk(word) {
      var i = 0;
      while (i < word.length) {
        var best = -1, len = 0;
        cjkRuns.forEach(function (r) {
          var at = word.indexOf(r, i);
          if (at >= 0 && (best < 0 || at < best || (at === best && r.length > len))) { best = at; len = r.length; }
        });
        if (best < 0) { push(word.slice(i), false); return; }
        push(word.slice(i, best), false);
        push(word.slice(best, best + len), true);
        i = best + len;
      }
    }
    function matches(piece) {
      return terms.length > 0 && indexTokens(piece).some(function (w) {
        return !HAS_CJK.test(w) && terms.some(function (t) { return w === t || (isPrefixToken(t) && w.lastIndexOf(t, 0) === 0); });
      });
    }
    text.split(/(\s+)/).forEach(function (word) {
      if (!word || /^\s+$/.test(word)) { push(word, false); return; }
      if (!matches(word)) {
        if (cjkRuns.length && HAS_CJK.test(word)) pushCjk(word); else push(word, false);
        return;
      }
      /* Mark the letter/digit runs that match by themselves ("Vision" of "Vision-Language");
         when only the whole matches (gpt4o for "GPT-4o"), mark the word without its edge punctuation. */
      var pieces = word.split(PIECE), any = false;
      var marks = pieces.map(function (piece, i) { var m = i % 2 === 1 && matches(piece); any = any || m; return m; });
      if (any) {
        pieces.forEach(function (piece, i) { push(piece, marks[i]); });
      } else {
        var m = EDGE.exec(word);
        push(m[1], false); push(m[2], true); push(m[3], false);
      }
    });
    return out;
  }

  return {
    CJK_RANGES: CJK_RANGES, CONNECTORS: CONNECTORS, STOP_WORDS: STOP_WORDS, PREFIX_MIN: PREFIX_MIN,
    FIELD_NAMES: FIELD_NAMES, normalise: normalise, stem: stem, indexTokens: indexTokens,
    queryAlternatives: queryAlternatives, isPrefixToken: isPrefixToken, parseQuery: parseQuery,
    search: search, highlight: highlight
  };
});
