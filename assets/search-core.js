/* SearchCore: the query side of the site's search, shared by the browser (window.SearchCore)
   and Node (require("./assets/search-core.js")).

   Tokenizer and normaliser are the same rules as site_builder/tokenize.py (the index side);
   tests/test_search_tokenize.py checks the two agree. Queries go to a lunr.js 2.3.9 index
   through index.query() (never the query-string parser), so no typed character can throw.

   Query syntax: words separated by spaces; every word must match (a title, author, track or
   abstract word starting with it, from 3 characters on); `title:word`, `author:name`,
   `abstract:word`, `track:word` restrict a word to one field; `-word` excludes the papers it matches;
   `"two words"` must match the words next to each other (checked against the result record's text,
   lunr has no positions); `a OR b` matches either. Anything else is searched as words. Results whose
   title matches more of the words come first, then lunr's BM25 score. */
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
  var CJK_SPLIT = new RegExp("([" + CJK_CLASS + "]+)", "u");
  var COMPOUND = new RegExp("[\\p{L}\\p{N}]+(?:[" + CONN + "][\\p{L}\\p{N}]+)*", "gu");
  var CONNECTOR = new RegExp("[" + CONN + "]", "u");
  var DIGIT_CUT = /(?<=\P{Nd})(?=\p{Nd})/u;
  var ASCII_WORD = /^[a-z]+$/;
  var ASCII = /^[\x00-\x7f]*$/;
  var MARKS = /\p{M}/gu;

  /* Latin letters that are not a base letter with a mark → the letters a reader types for them (FOLDED in
     site_builder/search/tokenize.py). */
  var FOLDED = { "ø": "o", "ł": "l", "đ": "d", "ħ": "h", "ı": "i", "ŧ": "t", "ß": "ss", "æ": "ae", "œ": "oe", "þ": "th",
                 "ð": "d" };
  var FOLD = /[øłđħıŧßæœþð]/g;
  /* German umlauts → their transliteration (DIN 5007-2: Müller = Mueller), indexed beside the folded form
     (TRANSLITERATED and transliterated in tokenize.py); the query is searched as typed. */
  var TRANSLITERATED = { "ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue" };
  var UMLAUT = /[äöüÄÖÜ]/g;

  /* text (NFC) with its German umlauts transliterated, or null when it holds none. */
  function transliterated(text) {
    text = String(text);
    if (ASCII.test(text)) return null;
    text = text.normalize("NFC");
    return text.search(UMLAUT) < 0 ? null : text.replace(UMLAUT, function (c) { return TRANSLITERATED[c]; });
  }

  /* Step 1: NFKC, lower case, combining marks removed, NFC, FOLDED letters folded (ASCII: lower case only). */
  function normalise(text) {
    text = String(text);
    if (ASCII.test(text)) return text.toLowerCase();
    return text.normalize("NFKC").toLowerCase().normalize("NFD").replace(MARKS, "").normalize("NFC")
      .replace(FOLD, function (c) { return FOLDED[c]; });
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

  /* One token of a query: an optional "-", an optional known field name and ":", then a quoted phrase
     (its closing quote optional; “…”, „…“, «…», 「…」 quote as "…" does, see QUOTES) or a word (possibly empty).
     Matches at any non-space position. */
  var TOKEN = new RegExp("(-?)(?:(" + Object.keys(FIELD_NAMES).join("|") + "):)?(?:\"([^\"]*)\"?|(\\S*))", "iy");

  /* One typed word as a group {word, field, reqs}, or null when it yields no term. */
  function wordGroup(word, field) {
    var reqs = queryAlternatives(word);
    return reqs.length ? { word: word, field: field, reqs: reqs } : null;
  }

  /* Quotation marks readers' keyboards type for '"' (smart punctuation, German, French, CJK input methods). */
  var QUOTES = /[\u201c\u201d\u201e\u201f\u00ab\u00bb\u300c\u300d\u300e\u300f\uff02]/g;

  /* The query's items in typed order: {neg, or (joined to the previous by OR), field, groups, phrase
     (the words of a quoted phrase of two or more words, stop words too, else null)}; items that yield no term dropped. */
  function queryItems(query) {
    var s = String(query == null ? "" : query).replace(QUOTES, '"'), at = 0, items = [], or = false;
    while (at < s.length) {
      if (/\s/.test(s[at])) { at++; continue; }
      TOKEN.lastIndex = at;
      var m = TOKEN.exec(s);
      at = TOKEN.lastIndex > at ? TOKEN.lastIndex : at + 1;
      if (!m) continue;
      if (!m[1] && !m[2] && m[4] === "OR") { or = items.length > 0; continue; }
      var field = m[2] ? FIELD_NAMES[m[2].toLowerCase()] : null;
      var words = m[3] !== undefined ? m[3].split(/\s+/).filter(Boolean) : [m[4]];
      var groups = words.map(function (w) { return wordGroup(w, field); }).filter(Boolean);
      if (groups.length) {
        items.push({ neg: m[1] === "-", or: or && m[1] !== "-", field: field, groups: groups,
                     phrase: m[3] !== undefined && words.length > 1 ? words : null });
      }
      or = false;
    }
    return items;
  }

  /* The typed query parsed: {clauses: [[item...]...] (every clause must match, through one of its items),
     excluded: [item...] (none may match), groups: the groups of the clauses' items}. Never throws:
     what is not syntax is searched as words. */
  function parseSearch(query) {
    var clauses = [], excluded = [], groups = [];
    queryItems(query).forEach(function (item) {
      if (item.neg) { excluded.push(item); return; }
      if (item.or && clauses.length) clauses[clauses.length - 1].push(item); else clauses.push([item]);
      groups.push.apply(groups, item.groups);
    });
    return { clauses: clauses, excluded: excluded, groups: groups };
  }

  /* The groups of the words that must match (or may, in an OR): [{word, field (index field or null), reqs}]. */
  function parseQuery(query) { return parseSearch(query).groups; }

  function groupTerms(group) {
    var seen = Object.create(null), out = [];
    group.reqs.forEach(function (alts) {
      alts.forEach(function (alt) {
        alt.forEach(function (t) { if (!seen[t]) { seen[t] = true; out.push(t); } });
      });
    });
    return out;
  }

  /* The index terms query reads, excluded words' too: [{term, prefix}] (prefix: every term starting with it
     is searched as well); what a sharded index loads before search(). */
  function queryTerms(query) {
    var parsed = parseSearch(query), seen = Object.create(null), out = [];
    var items = [].concat.apply(parsed.excluded, parsed.clauses);
    items.forEach(function (item) {
      item.groups.forEach(function (g) {
        groupTerms(g).forEach(function (t) {
          if (!seen[t]) { seen[t] = true; out.push({ term: t, prefix: isPrefixToken(t) }); }
        });
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

  /* The words of text for phrase checks: letter/digit runs, normalised and stemmed (stop words kept),
     each CJK character a word of its own. */
  function phraseWords(text) {
    var out = [];
    (normalise(text).match(/[\p{L}\p{N}]+/gu) || []).forEach(function (run) {
      run.split(CJK_SPLIT).forEach(function (part, i) {
        if (!part) return;
        if (i % 2) out.push.apply(out, codePoints(part)); else out.push(stem(part));
      });
    });
    return out;
  }

  /* Does words hold phrase (both phraseWords) as consecutive words? The phrase's last word may be the
     start of a word (from PREFIX_MIN characters on), as a typed word is. german: the phraseWords of words'
     text transliterated (as long as words, German umlauts spelt out) or null; a word matches either. */
  function holdsPhrase(words, phrase, german) {
    var n = phrase.length, last = phrase[n - 1], prefix = isPrefixToken(last);
    function is(j, word) { return words[j] === word || (german !== null && german[j] === word); }
    function starts(j) {
      return words[j].lastIndexOf(last, 0) === 0 || (german !== null && german[j].lastIndexOf(last, 0) === 0);
    }
    for (var i = 0; i + n <= words.length; i++) {
      var k = 0;
      while (k < n - 1 && is(i + k, phrase[k])) k++;
      if (k === n - 1 && (is(i + k, last) || (prefix && starts(i + k)))) return true;
    }
    return false;
  }

  /* The phraseWords of each text of a result record an index field covers (all fields: field null), as
     [words, german] (german: those of the text transliterated when it has German umlauts, as the index holds
     both, else null); each author's name a text of its own, so a phrase never runs from one name into the
     next (author:"Lin Wei" does not match "Mei Lin, Wei Chen"); made once per record object (records are made
     once by SearchTransport.records). */
  var RECORD_WORDS = typeof WeakMap === "function" ? new WeakMap() : null;
  function textWords(value) {
    var text = value ? String(value) : "", german = text ? transliterated(text) : null;
    return [text ? phraseWords(text) : [], german === null ? null : phraseWords(german)];
  }
  function recordWords(doc, field) {
    var all = RECORD_WORDS && RECORD_WORDS.get(doc);
    if (!all) {
      all = { title: [textWords(doc.title)], authors: (doc.authors || []).map(textWords),
              track: [textWords(doc.track)], abstract: [textWords(doc.abstract)] };
      if (RECORD_WORDS && typeof doc === "object") RECORD_WORDS.set(doc, all);
    }
    return field ? all[field] || [] : all.title.concat(all.authors, all.track, all.abstract);
  }

  /* Does the record doc hold item's phrase word next to word (in item's field when it names one)?
     True when there is no record to check against. */
  function phraseMatched(item, doc) {
    if (!item.phrase || !doc) return true;
    var phrase = phraseWords(item.phrase.join(" "));
    if (!phrase.length) return true;
    return recordWords(doc, item.field).some(function (w) { return holdsPhrase(w[0], phrase, w[1]); });
  }

  function itemMatched(item, matched, doc) {
    return item.groups.every(function (g) { return groupMatched(g, matched, null); }) && phraseMatched(item, doc);
  }

  /* Add the terms of groups to the lunr query q: each exactly (boost 10) and, from PREFIX_MIN characters
     on, as a prefix (boost 1), in the group's field or all; presence: a lunr.Query.presence or undefined. */
  function addTerms(lunr, q, groups, presence, added) {
    groups.forEach(function (g) {
      groupTerms(g).forEach(function (t) {
        var key = t + "\u0000" + (g.field || "") + "\u0000" + (presence || "");
        if (added[key]) return;
        added[key] = true;
        var exact = { usePipeline: false, boost: 10 };
        if (presence) exact.presence = presence;
        if (g.field) exact.fields = [g.field];
        q.term(t, exact);
        if (isPrefixToken(t)) {
          var wild = { usePipeline: false, boost: 1, wildcard: lunr.Query.wildcard.TRAILING };
          if (presence) wild.presence = presence;
          if (g.field) wild.fields = [g.field];
          q.term(t, wild);
        }
      });
    });
  }

  /* An excluded item lunr can exclude by itself: one word yielding one term. */
  function singleTerm(item) {
    var reqs = item.groups[0].reqs;
    return !item.phrase && item.groups.length === 1 && reqs.length === 1 && reqs[0].length === 1 && reqs[0][0].length === 1;
  }

  /* {term: {field: true}} of a lunr result (or the one it carries: SearchTransport's scorer gives it). */
  function matchedTerms(hit) {
    if (hit.matched) return hit.matched;
    var matched = Object.create(null), meta = hit.matchData.metadata;
    Object.keys(meta).forEach(function (m) {
      matched[m] = Object.create(null);
      Object.keys(meta[m]).forEach(function (f) { matched[m][f] = true; });
    });
    return matched;
  }

  /* {ref: true} of the documents some of items (excluded words lunr cannot exclude alone) match. */
  function excludedRefs(lunr, index, items, record) {
    var out = Object.create(null), added = Object.create(null);
    if (!items.length) return out;
    index.query(function (q) {
      items.forEach(function (item) { addTerms(lunr, q, item.groups, undefined, added); });
    }).forEach(function (hit) {
      var matched = matchedTerms(hit), doc = null, got = false;
      var get = function () { if (!got) { got = true; doc = record ? record(hit.ref) : null; } return doc; };
      if (items.some(function (item) { return itemMatched(item, matched, item.phrase ? get() : null); })) out[hit.ref] = true;
    });
    return out;
  }

  /* Search a loaded lunr index (or what has its query(fn) and gives its results: SearchTransport's scorer,
     whose hits carry their matched terms, shared by hits matched alike, so each is judged once). Every clause must match through one of its items (an item: all its words;
     a phrase: its words next to each other in the record, record(ref) giving it; without record phrases
     match as words); excluded items must not: one-term ones through lunr's PROHIBITED presence, the others
     checked after a second query. Returns {groups, excludedOnly (the query holds exclusions alone),
     results: [{ref, score, titleGroups, terms (the index terms it matched, in no set order), order}]}, results
     sorted by title matches then score (a scorer's hits become the results, keeping their other fields).
     Never throws on any query. */
  function search(lunr, index, query, record) {
    var parsed = parseSearch(query), groups = parsed.groups;
    var out = { groups: groups, excludedOnly: !parsed.clauses.length && parsed.excluded.length > 0, results: [] };
    if (!parsed.clauses.length) return out;
    var alone = parsed.excluded.filter(singleTerm), others = parsed.excluded.filter(function (i) { return !singleTerm(i); });
    var added = Object.create(null);
    var hits = index.query(function (q) {
      addTerms(lunr, q, groups, undefined, added);
      alone.forEach(function (item) { addTerms(lunr, q, item.groups, lunr.Query.presence.PROHIBITED, added); });
    });
    var dropped = excludedRefs(lunr, index, others, record);
    var results = out.results, judged = new Map();
    var phrases = parsed.clauses.some(function (clause) { return clause.some(function (item) { return item.phrase; }); });
    /* The verdict on a hit's matched terms: null (a clause unmatched) or {titleGroups, terms}; the same for
       hits that share their matched object, when no phrase needs the record. */
    function judge(hit, matched) {
      if (!phrases && judged.has(matched)) return judged.get(matched);
      var doc = null, got = false;
      var get = function () { if (!got) { got = true; doc = record ? record(hit.ref) : null; } return doc; };
      var ok = parsed.clauses.every(function (clause) {
        return clause.some(function (item) { return itemMatched(item, matched, item.phrase ? get() : null); });
      });
      var verdict = ok ? { titleGroups: groups.filter(function (g) { return groupMatched(g, matched, ["title"]); }).length,
                           terms: Object.keys(matched) } : null;
      if (!phrases && hit.matched) judged.set(matched, verdict);
      return verdict;
    }
    var anyDropped = others.length > 0;
    hits.forEach(function (hit) {
      if (anyDropped && dropped[hit.ref]) return;
      var verdict = judge(hit, matchedTerms(hit));
      if (!verdict) return;
      if (hit.matched) {  /* the scorer's hit, made for this query: the result itself (no second object) */
        hit.titleGroups = verdict.titleGroups;
        hit.terms = verdict.terms;
        results.push(hit);
      } else results.push({ ref: hit.ref, score: hit.score, titleGroups: verdict.titleGroups, terms: verdict.terms });
    });
    results.forEach(function (r, i) { r.order = i; });
    results.sort(function (a, b) { return (b.titleGroups - a.titleGroups) || (b.score - a.score) || (a.order - b.order); });
    return out;
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

  /* [start, end) of each sentence of text (white space collapsed): it ends after . ! ? before a space or
     the end, or after 。！？. */
  function sentences(text) {
    var out = [], start = 0;
    for (var i = 0; i < text.length; i++) {
      var c = text[i];
      if ("\u3002\uff01\uff1f".indexOf(c) >= 0 || (".!?".indexOf(c) >= 0 && (i + 1 === text.length || text[i + 1] === " "))) {
        var end = i + 1;
        while (end < text.length && text[end] === " ") end++;
        out.push([start, end]);
        start = end;
        i = end - 1;
      }
    }
    if (start < text.length) out.push([start, text.length]);
    return out;
  }

  /* The indexes (into groups) of the groups some word of text matches (as highlight marks them). */
  function groupsIn(text, groups) {
    var out = [];
    groups.forEach(function (g, i) {
      if (highlight(text, [g]).some(function (piece) { return piece[1]; })) out.push(i);
    });
    return out;
  }

  /* text[from..to) cut to at most limit characters at words, from a little before offset `at` (a match). */
  function cutAround(text, from, to, at, limit) {
    if (to - from <= limit) return [from, to];
    var start = Math.max(from, Math.min(at - Math.floor(limit / 4), to - limit));
    if (start > from) {
      var space = text.indexOf(" ", start);
      start = space >= 0 && space < at ? space + 1 : start;
    }
    var end = Math.min(to, start + limit);
    if (end < to) {
      var back = text.lastIndexOf(" ", end);
      if (back > start + limit / 2) end = back;
    }
    return [start, end];
  }

  /* The passage of text (a record's abstract) to show for a query's groups: the sentence, or two next to
     each other, that holds the most of the groups (fewest sentences, then the first, on a tie), at most
     limit characters (cut around its first match); the start of text when no group matches it.
     "… " before and " …" after mark a cut. */
  function snippet(text, groups, limit) {
    text = String(text == null ? "" : text);
    limit = limit || 300;
    var spans = sentences(text), found = spans.map(function (sp) { return groupsIn(text.slice(sp[0], sp[1]), groups); });
    var best = null;
    spans.forEach(function (sp, i) {
      var one = found[i].length, two = i + 1 < spans.length && spans[i + 1][1] - sp[0] <= limit ?
        found[i].concat(found[i + 1].filter(function (g) { return found[i].indexOf(g) < 0; })).length : 0;
      if (one && (!best || one > best.n)) best = { n: one, span: [sp[0], sp[1]] };
      if (two > Math.max(one, found[i + 1] ? found[i + 1].length : 0) && (!best || two > best.n)) best = { n: two, span: [sp[0], spans[i + 1][1]] };
    });
    var span;
    if (!best) span = cutAround(text, 0, text.length, 0, limit);
    else {
      var part = text.slice(best.span[0], best.span[1]), offset = 0, pieces = highlight(part, groups);
      for (var k = 0; k < pieces.length && !pieces[k][1]; k++) offset += pieces[k][0].length;
      span = cutAround(text, best.span[0], best.span[1], best.span[0] + offset, limit);
    }
    var out = text.slice(span[0], span[1]).trim();
    return (span[0] > 0 ? "\u2026 " : "") + out + (span[1] < text.length ? " \u2026" : "");
  }

  /* Append text to the DOM node parent with the query's words wrapped in <mark>: text nodes only, never
     HTML (the search page's results and the header's type-ahead list). */
  function appendMarked(parent, text, groups) {
    var doc = parent.ownerDocument;
    highlight(text, groups).forEach(function (piece) {
      var node = doc.createTextNode(piece[0]);
      if (piece[1]) {
        var mark = doc.createElement("mark");
        mark.appendChild(node);
        node = mark;
      }
      parent.appendChild(node);
    });
    return parent;
  }

  return {
    CJK_RANGES: CJK_RANGES, CONNECTORS: CONNECTORS, STOP_WORDS: STOP_WORDS, PREFIX_MIN: PREFIX_MIN,
    FIELD_NAMES: FIELD_NAMES, normalise: normalise, transliterated: transliterated, stem: stem, indexTokens: indexTokens,
    queryAlternatives: queryAlternatives, isPrefixToken: isPrefixToken, parseQuery: parseQuery,
    parseSearch: parseSearch, queryTerms: queryTerms, phraseWords: phraseWords, search: search, highlight: highlight,
    sentences: sentences, snippet: snippet, appendMarked: appendMarked
  };
});
