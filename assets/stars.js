/* Reading-list features in the browser: star a paper, mark it read, "My list" with BibTeX and
   Markdown export, and the BibTeX copy button. Kept in localStorage under a key named after the
   site's root (so two sites on one origin, e.g. user.github.io/a/ and /b/, or two folders opened
   from file://, never share a list). Data is inserted as text, never as HTML. Downloads use a Blob
   and an <a download> link, which also works from file://. */
(function () {
  "use strict";
  var _ = window.siteWords;  // page words in the site's language (assets/words.js)
  var script = document.currentScript;
  /* The site's root: the page's data-site-root when the page names it (the "My list" page), else this script's
     folder's parent (assets/.., as assets/theme.js adds it). */
  var root = script.hasAttribute("data-site-root") ? new URL(script.getAttribute("data-site-root"), window.location.href)
    : new URL("../index.html", script.src);
  var KEY = "reading-list:v1:" + root.pathname.replace(/[^\/]*$/, "");

  function load() {
    try {
      var data = JSON.parse(window.localStorage.getItem(KEY) || "{}");
      return { starred: data.starred || {}, read: data.read || {} };
    } catch (e) {
      return { starred: {}, read: {} };
    }
  }

  function save(state) {
    try {
      window.localStorage.setItem(KEY, JSON.stringify(state));
      return true;
    } catch (e) {
      return false; /* storage full or disabled: the page still works, the mark is not kept */
    }
  }

  var el = window.siteElement;  // (assets/words.js)

  /* --- Paper page: star and read buttons ------------------------------------------------- */
  /* Made here, not by the page (they work only with JavaScript; issue 25, the site's size), as is the BibTeX copy
     button below: the paper is the article's data-paper-id, its path the page's address under the site's root
     (as the site builder names it, papers/<slug>.html), "et al." the article's data-et-al. */
  var article = document.querySelector("article.paper[data-paper-id]");
  if (article) {
    var folder = decodeURIComponent(root.pathname.replace(/[^\/]*$/, ""));
    var here = decodeURIComponent(window.location.pathname);
    var paper = { id: article.getAttribute("data-paper-id"),
                  path: here.indexOf(folder) === 0 ? here.slice(folder.length) : here.replace(/^.*\//, "") };
    /* What the page shows once is not repeated (issue 25): the BibTeX entry, the title, venue and authors
       (Highwire tags), the absolute URL (the canonical link, with a base URL); "My list" keeps them. */
    var entry = document.getElementById("bibtex");
    var metas = function (name) {
      return Array.prototype.map.call(document.querySelectorAll('meta[name="' + name + '"]'), function (m) { return m.content; });
    };
    var meta = function (name) { return metas(name)[0] || ""; };
    var canonical = document.querySelector('link[rel="canonical"]');
    paper.bibtex = entry ? entry.textContent : "";
    paper.title = meta("citation_title");
    paper.venue = meta("citation_conference_title");
    paper.authors = metas("citation_author");
    paper.et_al = article.hasAttribute("data-et-al");
    paper.url = canonical ? canonical.href : "";
    var actions = el("div", "reading-actions");
    var star = el("button", "star-button"), read = el("button", "read-button");
    var mine = el("a", null, _("My list"));
    star.type = read.type = "button";
    mine.href = new URL("stars.html", root).href;
    [star, read, mine].forEach(function (node, i) {
      if (i) actions.appendChild(document.createTextNode(" "));
      actions.appendChild(node);
    });
    article.insertBefore(actions, article.querySelector(".paper-meta"));
    var star = actions.querySelector(".star-button");
    var read = actions.querySelector(".read-button");
    var show = function () {
      var state = load();
      var starred = !!state.starred[paper.id], isRead = !!state.read[paper.id];
      star.setAttribute("aria-pressed", String(starred));
      star.textContent = starred ? _("★ Starred") : _("☆ Star");
      read.setAttribute("aria-pressed", String(isRead));
      read.textContent = isRead ? _("✓ Read") : _("Mark read");
    };
    star.addEventListener("click", function () {
      var state = load();
      if (state.starred[paper.id]) delete state.starred[paper.id];
      else { paper.starredAt = new Date().toISOString(); state.starred[paper.id] = paper; }
      save(state);
      show();
    });
    read.addEventListener("click", function () {
      var state = load();
      if (state.read[paper.id]) delete state.read[paper.id]; else state.read[paper.id] = true;
      save(state);
      show();
    });
    show();
  }

  /* --- BibTeX copy button ---------------------------------------------------------------- */
  Array.prototype.forEach.call(document.querySelectorAll(".cite-actions"), function (actions) {
    var copy = el("button", "copy-button", _("Copy BibTeX"));
    var said = el("span", "copy-status");
    copy.type = "button";
    copy.setAttribute("data-copy-target", "bibtex");
    said.setAttribute("role", "status");
    said.setAttribute("aria-live", "polite");
    var first = actions.firstChild;  // the link to the venue's .bib file
    [copy, " ", said, " "].forEach(function (node) {
      actions.insertBefore(typeof node === "string" ? document.createTextNode(node) : node, first);
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll("button[data-copy-target]"), function (button) {
    var target = document.getElementById(button.getAttribute("data-copy-target"));
    var status = button.parentNode.querySelector(".copy-status");
    function done(ok) { if (status) status.textContent = ok ? _("Copied.") : _("Select the text and copy it."); }
    function fallback(text) {
      var area = el("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed"; area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(area);
      done(ok);
    }
    button.addEventListener("click", function () {
      var text = target.textContent;
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { done(true); }, function () { fallback(text); });
      } else {
        fallback(text);
      }
    });
  });

  /* --- "My list" page -------------------------------------------------------------------- */
  var list = document.getElementById("my-list");
  if (!list) return;
  var items = document.getElementById("my-list-items");
  var status = document.getElementById("my-list-status");

  function starredPapers(state) {
    return Object.keys(state.starred).map(function (id) { return state.starred[id]; })
      .sort(function (a, b) { return (a.starredAt || "").localeCompare(b.starredAt || "") || a.id.localeCompare(b.id); });
  }

  function authorsText(p) {
    var names = (p.authors || []).slice();
    if (p.et_al) names.push("et al.");
    return names.join(", ");
  }

  function render() {
    var state = load();
    var papers = starredPapers(state);
    items.textContent = "";
    status.textContent = papers.length ? _("Starred papers: %(num)s", {num: papers.length})
      : _("No starred papers yet: use ☆ Star on a paper's page.");
    document.getElementById("export-bibtex").disabled = !papers.length;
    document.getElementById("export-markdown").disabled = !papers.length;
    papers.forEach(function (p) {
      var item = el("li", "paper-item my-list-item");
      item.setAttribute("data-paper-id", p.id);
      var a = el("a", "paper-link", p.title);
      a.href = p.path; /* site-root relative, and this page is at the root */
      item.appendChild(a);
      if (state.read[p.id]) item.appendChild(el("span", "status-badge status-read", "read"));
      var meta = authorsText(p);
      item.appendChild(el("div", "meta", (meta ? meta + " · " : "") + p.venue));
      var remove = el("button", "unstar-button", _("Remove"));
      remove.type = "button";
      remove.setAttribute("aria-label", _("Remove %(title)s from my list", {title: p.title}));
      remove.addEventListener("click", function () {
        var s = load();
        delete s.starred[p.id];
        save(s);
        render();
      });
      item.appendChild(remove);
      items.appendChild(item);
    });
  }

  function download(name, type, text) {
    var url = URL.createObjectURL(new Blob([text], { type: type }));
    var a = el("a");
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    document.body.removeChild(a);
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }

  function markdownEscape(text) {
    return text.replace(/([\\`*_\[\]<>#|])/g, "\\$1");
  }

  document.getElementById("export-bibtex").addEventListener("click", function () {
    download("my-list.bib", "application/x-bibtex;charset=utf-8",
      starredPapers(load()).map(function (p) { return p.bibtex; }).join("\n"));
  });
  document.getElementById("export-markdown").addEventListener("click", function () {
    var state = load();
    var lines = ["# My list", ""];
    starredPapers(state).forEach(function (p) {
      var target = p.url || encodeURI(p.path);
      var line = "- [" + (state.read[p.id] ? "x" : " ") + "] [" + markdownEscape(p.title) + "](" + target + ")";
      var meta = authorsText(p);
      lines.push(line + " — " + markdownEscape((meta ? meta + ", " : "") + p.venue));
    });
    download("my-list.md", "text/markdown;charset=utf-8", lines.join("\n") + "\n");
  });
  window.addEventListener("storage", function (e) { if (e.key === KEY) render(); });
  list.hidden = false;
  render();
})();
