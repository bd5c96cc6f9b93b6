/* The paper map (map.html): draws window.PAPER_MAP (map-data.js, site_builder/output/mapdata.py) on a canvas.
   Points coloured by venue or track (the legend shows or hides each), words typed in the search field highlight
   the papers whose title or authors hold them all (a plain match of each word within the title and authors,
   case-insensitive; not the search page's index), pointing or the arrow keys show a paper, a click or Enter opens
   it. No network: the data came with the page as a classic script, so this works from file:// too. */
(function () {
  "use strict";
  var _ = window.siteWords;  // page words in the site's language (assets/words.js)
  var data = window.PAPER_MAP;
  var tool = document.getElementById("map-tool");
  if (!data || !tool) return;
  tool.hidden = false;

  var canvas = document.getElementById("map-canvas");
  var tip = document.getElementById("map-tip");
  var focusLine = document.getElementById("map-focus");
  var found = document.getElementById("map-found");
  var search = document.getElementById("map-search");
  var legendList = document.getElementById("map-legend");
  var n = data.x.length;
  var PALETTE = ["#2f6fb3", "#d1791b", "#2e9a6b", "#c8453c", "#9a62c4", "#8c6b3e",
                 "#d25ea6", "#6f7f8c", "#a3a12c", "#1f9fb0", "#5b5fd6", "#c2603f"];
  var mode = "venue";
  var hidden = {venue: {}, track: {}};
  var matches = null;           // null: no search; else Uint8Array, 1 = the paper matches
  var hay = null;               // lower-cased title and authors, made on the first search
  var current = -1;             // the paper shown by pointer or keyboard
  var view = {scale: 1, left: 0, top: 0, width: 0, height: 0};
  var ratio = window.devicePixelRatio || 1;
  var dot = n < 500 ? 5 : n < 3000 ? 3 : 2;  // a point's size: smaller as the map fills

  function groupOf(i) { return mode === "venue" ? data.venue[i] : data.track[i]; }
  function groups() { return mode === "venue" ? data.venues : data.tracks; }
  function colour(group) { return group < 0 ? "#8a8a8a" : PALETTE[group % PALETTE.length]; }
  function shown(i) { return !hidden[mode][groupOf(i)]; }

  function themeColour(name, fallback) {
    var value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
    return value || fallback;
  }

  function layout() {
    var width = canvas.parentNode.clientWidth || 600;
    var height = Math.round(Math.min(width, Math.max(320, window.innerHeight * 0.75)));
    ratio = window.devicePixelRatio || 1;
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    var pad = 14, size = Math.min(width, height) - 2 * pad;
    view = {scale: size / data.grid, left: (width - size) / 2, top: (height - size) / 2, width: width, height: height};
  }

  function px(i) { return view.left + data.x[i] * view.scale; }
  function py(i) { return view.top + data.y[i] * view.scale; }

  function draw() {
    var ctx = canvas.getContext("2d");
    var theme = {bg: themeColour("--bg", "#fff"), fg: themeColour("--fg", "#000"), focus: themeColour("--focus", "#1a5aa6")};
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.fillStyle = theme.bg;
    ctx.fillRect(0, 0, view.width, view.height);
    var dim = matches !== null;
    for (var pass = 0; pass < 2; pass++) {  // dimmed points first, highlighted ones on top
      for (var i = 0; i < n; i++) {
        if (!shown(i)) continue;
        var lit = !dim || matches[i] === 1;
        if ((pass === 1) !== (dim && lit)) continue;
        ctx.globalAlpha = dim && !lit ? 0.18 : 0.85;
        ctx.fillStyle = colour(groupOf(i));
        var r = dim && lit ? dot + 1.5 : dot;
        ctx.fillRect(px(i) - r / 2, py(i) - r / 2, r, r);
        if (dim && lit) {
          ctx.globalAlpha = 1;
          ctx.strokeStyle = theme.fg;
          ctx.lineWidth = 1;
          ctx.strokeRect(px(i) - r / 2 - 1, py(i) - r / 2 - 1, r + 2, r + 2);
        }
      }
    }
    ctx.globalAlpha = 1;
    drawLabels(ctx, theme);
    if (current >= 0) {
      ctx.strokeStyle = theme.focus;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(px(current), py(current), 7, 0, 2 * Math.PI);
      ctx.stroke();
    }
  }

  function drawLabels(ctx, theme) {
    ctx.font = "12px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.lineJoin = "round";
    data.clusters.forEach(function (cluster) {
      var x = view.left + cluster.x * view.scale, y = view.top + cluster.y * view.scale;
      var text = cluster.label.split(" · ").slice(0, 2).join(" · ");
      ctx.lineWidth = 4;
      ctx.strokeStyle = theme.bg;
      ctx.strokeText(text, x, y);
      ctx.fillStyle = theme.fg;
      ctx.fillText(text, x, y);
    });
  }

  function describe(i) {
    var venue = data.venues[data.venue[i]];
    var cluster = data.clusters[data.cluster[i]];
    return data.title[i] + " — " + venue + (cluster ? _(" (topic: %(topic)s)", {topic: cluster.label}) : "");
  }

  function show(i, fromPointer) {
    current = i;
    draw();
    if (i < 0) {
      tip.hidden = true;
      return;
    }
    tip.textContent = describe(i);
    tip.hidden = false;
    var x = px(i), y = py(i);
    tip.style.left = Math.min(x + 10, view.width - 260) + "px";
    tip.style.top = (y + 12) + "px";
    if (!fromPointer) focusLine.textContent = describe(i);
  }

  function nearest(x, y, limit) {
    var best = -1, bestDistance = limit * limit;
    for (var i = 0; i < n; i++) {
      if (!shown(i)) continue;
      var dx = px(i) - x, dy = py(i) - y, d = dx * dx + dy * dy;
      if (d < bestDistance) { bestDistance = d; best = i; }
    }
    return best;
  }

  function step(dx, dy) {  // the nearest shown paper in the direction (dx, dy), within a 45° cone either side
    if (current < 0) return nearest(view.width / 2, view.height / 2, Infinity);
    var best = -1, bestScore = Infinity, x0 = px(current), y0 = py(current);
    for (var i = 0; i < n; i++) {
      if (i === current || !shown(i)) continue;
      var ex = px(i) - x0, ey = py(i) - y0;
      var along = ex * dx + ey * dy, across = Math.abs(ex * dy - ey * dx);
      if (along <= 0 || across > along) continue;
      var score = along + 2 * across;
      if (score < bestScore) { bestScore = score; best = i; }
    }
    return best < 0 ? current : best;
  }

  function open(i) { if (i >= 0) window.location.href = data.path[i]; }

  function point(event) {
    var box = canvas.getBoundingClientRect();
    return nearest(event.clientX - box.left, event.clientY - box.top, 8);
  }

  canvas.addEventListener("mousemove", function (event) {
    var i = point(event);
    if (i !== current) show(i, true);
    canvas.style.cursor = i >= 0 ? "pointer" : "default";
  });
  canvas.addEventListener("mouseleave", function () { if (document.activeElement !== canvas) show(-1, true); });
  canvas.addEventListener("click", function (event) { open(point(event)); });
  canvas.addEventListener("focus", function () { if (current < 0) show(step(0, 0), false); });
  canvas.addEventListener("keydown", function (event) {
    var moves = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
    if (moves[event.key]) {
      event.preventDefault();
      show(step(moves[event.key][0], moves[event.key][1]), false);
    } else if (event.key === "Enter") {
      open(current);
    } else if (event.key === "Escape") {
      show(-1, false);
      focusLine.textContent = "";
    }
  });

  function highlight() {
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) {
      matches = null;
      found.textContent = "";
      draw();
      return;
    }
    if (hay === null) {
      hay = data.title.map(function (title, i) { return (title + " " + data.authors[i]).toLowerCase(); });
    }
    matches = new Uint8Array(n);
    var count = 0;
    for (var i = 0; i < n; i++) {
      if (words.every(function (word) { return hay[i].indexOf(word) >= 0; })) { matches[i] = 1; count++; }
    }
    found.textContent = count === 1 ? _("1 paper matches") : _("%(num)s papers match", {num: count});
    draw();
  }
  search.addEventListener("input", highlight);

  function legend() {
    var names = groups(), counts = names.map(function () { return 0; }), other = 0;
    for (var i = 0; i < n; i++) { var g = groupOf(i); if (g < 0) other++; else counts[g]++; }
    legendList.textContent = "";
    var entries = names.map(function (name, g) { return [name, g, counts[g]]; });
    if (other) entries.push([_("No track"), -1, other]);
    entries.forEach(function (entry) {
      if (!entry[2]) return;
      var item = document.createElement("li");
      var label = document.createElement("label");
      var box = document.createElement("input");
      box.type = "checkbox";
      box.checked = !hidden[mode][entry[1]];
      box.addEventListener("change", function () { hidden[mode][entry[1]] = !box.checked; draw(); });
      var swatch = document.createElement("span");
      swatch.className = "map-swatch";
      swatch.style.background = colour(entry[1]);
      swatch.setAttribute("aria-hidden", "true");
      label.appendChild(box);
      label.appendChild(swatch);
      label.appendChild(document.createTextNode(entry[0] + " (" + entry[2] + ")"));
      item.appendChild(label);
      legendList.appendChild(item);
    });
  }

  function showAll(on) {
    var all = {};
    if (!on) { for (var g = -1; g < groups().length; g++) all[g] = true; }
    hidden[mode] = all;
    legend();
    draw();
  }
  document.getElementById("map-all").addEventListener("click", function () { showAll(true); });
  document.getElementById("map-none").addEventListener("click", function () { showAll(false); });
  Array.prototype.forEach.call(document.querySelectorAll("input[name=map-colour]"), function (radio) {
    radio.addEventListener("change", function () { mode = radio.value; legend(); draw(); });
  });

  function openTopic() {  // a link to map.html#topic-N (from a venue page) opens that topic's list of papers
    var target = location.hash && document.getElementById(location.hash.slice(1));
    var details = target && target.querySelector("details");
    if (details) details.open = true;
  }
  window.addEventListener("hashchange", openTopic);
  openTopic();

  function refresh() { layout(); draw(); }
  window.addEventListener("resize", refresh);
  if (window.matchMedia) {
    var dark = window.matchMedia("(prefers-color-scheme: dark)");
    if (dark.addEventListener) dark.addEventListener("change", draw);
  }
  new MutationObserver(draw).observe(document.documentElement, {attributes: true});  // the theme toggle
  legend();
  refresh();
  window.paperMap = {show: function (i) { show(i, false); }, current: function () { return current; },
                     matches: function () { return matches; }, position: function (i) { return [px(i), py(i)]; }};
})();
