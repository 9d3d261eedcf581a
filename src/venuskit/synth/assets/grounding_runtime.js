// venuskit grounding runtime: label extraction in one call, and the hide / key / restore hooks of the pixel check.
//
// A target is an element with data-gt="ID", a text range listed in data-gt-ranges='[[ID,start,end],...]' on an
// element whose first child is its text, or a canvas item registered by the drawing code through __gt.canvas().
// A label is kept only if the target is visible, wholly inside the viewport and every clipping ancestor, and
// not covered: elementFromPoint at a grid of points inside the box must hit the target (or a descendant).
// It always installs afresh: set_content reuses the window (document.open keeps globals), and a runtime left from
// the previous page would hold that page's canvases.
(() => {
  const canvases = [];
  const undo = [];
  const KEY = "rgb(255, 0, 255)";
  const EPS = 0.5;

  function clipRect(a, cache) {
    if (cache.has(a)) return cache.get(a);
    const cs = getComputedStyle(a);
    let rect = null;
    if (cs.overflowX !== "visible" || cs.overflowY !== "visible") {
      const r = a.getBoundingClientRect();
      const l = r.left + a.clientLeft, t = r.top + a.clientTop;
      rect = [l, t, l + (a.clientWidth || r.width), t + (a.clientHeight || r.height)];
    }
    cache.set(a, rect);
    return rect;
  }

  function unclipped(el, r, cache) {
    if (r.left < -EPS || r.top < -EPS || r.right > innerWidth + EPS || r.bottom > innerHeight + EPS) return false;
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const c = clipRect(a, cache);
      if (c && (r.left < c[0] - EPS || r.top < c[1] - EPS || r.right > c[2] + EPS || r.bottom > c[3] + EPS)) return false;
    }
    return true;
  }

  // Inner grid plus the four edge midpoints 1.5 CSS px inside the border: a cover that takes an edge strip (an
  // open menu over part of a toolbar button) is caught there. Hit testing works on pixel-snapped boxes, so a
  // probe nearer the edge can land in the neighbour; rounded corners are not probed.
  function hits(host, r, cross) {
    const ix = Math.min(1.5, r.width / 4) / r.width, iy = Math.min(1.5, r.height / 4) / r.height;
    const edges = [[ix, 0.5], [1 - ix, 0.5], [0.5, iy], [0.5, 1 - iy]];
    const grid = cross
      ? [[0.5, 0.5], [0.2, 0.5], [0.8, 0.5], [0.5, 0.2], [0.5, 0.8], ...edges]
      : [[0.2, 0.2], [0.5, 0.2], [0.8, 0.2], [0.2, 0.5], [0.5, 0.5], [0.8, 0.5], [0.2, 0.8], [0.5, 0.8], [0.8, 0.8], ...edges];
    for (const [fx, fy] of grid) {
      const h = document.elementFromPoint(r.left + fx * r.width, r.top + fy * r.height);
      if (!h || !(h === host || host.contains(h))) return false;
    }
    return true;
  }

  function visible(el) {
    return el.checkVisibility({ opacityProperty: true, visibilityProperty: true, checkOpacity: true, checkVisibilityCSS: true });
  }

  function judge(host, r, cache, cross) {
    if (!(r.width > 0 && r.height > 0)) return "empty";
    if (!visible(host)) return "hidden";
    if (!unclipped(host, r, cache)) return "clipped";
    if (!hits(host, r, cross)) return "occluded";
    return null;
  }

  function elementLabel(el, cache) {
    const r = el.getBoundingClientRect();
    const out = { id: el.dataset.gt, x: r.left, y: r.top, w: r.width, h: r.height, kind: "box" };
    const v = el.dataset.gtValue;
    if (v !== undefined) {
      // A point target on a track (a slider value): a narrow band around the exact point.
      const inset = parseFloat(el.dataset.gtInset || "0");
      const px = r.left + inset + parseFloat(v) * (r.width - 2 * inset), py = r.top + r.height / 2;
      const tol = Math.max(3, r.width * 0.015);
      out.kind = "point";
      out.px = px; out.py = py;
      out.x = px - tol; out.w = 2 * tol;
      const h = document.elementFromPoint(px, py);
      out.why = !visible(el) ? "hidden" : !unclipped(el, r, cache) ? "clipped" : !(h && el.contains(h)) ? "occluded" : null;
      return out;
    }
    out.why = judge(el, r, cache, el.dataset.gtHit === "cross");
    return out;
  }

  function rangeOf(host, start, end) {
    const text = host.firstChild;
    if (!text || text.nodeType !== Node.TEXT_NODE || end > text.length) return null;
    const range = document.createRange();
    range.setStart(text, start);
    range.setEnd(text, end);
    return range;
  }

  // Glyph ink can overhang a word's advance box (serif 'f', 'y'); the label is the union of the range's box
  // and the ink box that canvas text metrics give for the same font.
  let measure = null;
  function inkBox(host, text, r) {
    measure = measure || document.createElement("canvas").getContext("2d");
    const cs = getComputedStyle(host);
    measure.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const m = measure.measureText(text);
    const baseline = r.top + (r.height - m.fontBoundingBoxAscent - m.fontBoundingBoxDescent) / 2 + m.fontBoundingBoxAscent;
    const x1 = Math.min(r.left, r.left - m.actualBoundingBoxLeft), x2 = Math.max(r.right, r.left + m.actualBoundingBoxRight);
    const y1 = Math.min(r.top, baseline - m.actualBoundingBoxAscent), y2 = Math.max(r.bottom, baseline + m.actualBoundingBoxDescent);
    return new DOMRect(x1, y1, x2 - x1, y2 - y1);
  }

  function rangeLabels(host, cache, out) {
    for (const [id, start, end] of JSON.parse(host.dataset.gtRanges)) {
      const range = rangeOf(host, start, end);
      const rects = range ? range.getClientRects() : [];
      if (rects.length !== 1) { out.push({ id, why: "wrapped" }); continue; }
      const r = inkBox(host, range.toString(), rects[0]);
      out.push({ id, x: r.left, y: r.top, w: r.width, h: r.height, kind: "range", why: judge(host, r, cache, false) });
    }
  }

  function canvasLabels(cache, out) {
    const dpr = window.devicePixelRatio || 1;
    for (const c of canvases) {
      // A canvas bitmap is drawn at its box origin snapped to whole device pixels.
      const cr = c.el.getBoundingClientRect();
      const ox = Math.round(cr.left * dpr) / dpr, oy = Math.round(cr.top * dpr) / dpr;
      for (const [id, [x, y, w, h]] of Object.entries(c.items)) {
        const r = new DOMRect(ox + x, oy + y, w, h);
        out.push({ id, x: r.left, y: r.top, w, h, kind: "canvas", why: judge(c.el, r, cache, c.cross) });
      }
    }
  }

  function labels() {
    const cache = new Map();
    const out = [];
    for (const el of document.querySelectorAll("[data-gt]")) out.push(elementLabel(el, cache));
    for (const host of document.querySelectorAll("[data-gt-ranges]")) rangeLabels(host, cache, out);
    canvasLabels(cache, out);
    return { labels: out, text: document.body.innerText, width: innerWidth, height: innerHeight };
  }

  // ---- the pixel check: change one target, let Python screenshot, then undo ----

  function saveStyle(el) {
    const old = el.getAttribute("style");
    undo.push(() => (old === null ? el.removeAttribute("style") : el.setAttribute("style", old)));
  }

  function setImportant(el, props) {
    saveStyle(el);
    for (const [k, v] of Object.entries(props)) el.style.setProperty(k, v, "important");
  }

  // Text ranges change through the CSS Custom Highlight API: no DOM change, so no shaping change either
  // (wrapping a word in a span can move the glyphs after it by a sub-pixel).
  function highlightRange(id, mode) {
    for (const host of document.querySelectorAll("[data-gt-ranges]")) {
      const hit = JSON.parse(host.dataset.gtRanges).find((t) => t[0] === id);
      if (!hit) continue;
      if (!document.getElementById("__gt_hl")) {
        const s = document.createElement("style");
        s.id = "__gt_hl";
        s.textContent = `::highlight(gt-hide){color:transparent} ::highlight(gt-key){background-color:${KEY};color:${KEY}}`;
        document.head.appendChild(s);
      }
      const name = mode === "hide" ? "gt-hide" : "gt-key";
      CSS.highlights.set(name, new Highlight(rangeOf(host, hit[1], hit[2])));
      undo.push(() => CSS.highlights.delete(name));
      return true;
    }
    return false;
  }

  function canvasOf(id) {
    return canvases.find((c) => id in c.items) || null;
  }

  function change(id, mode) {
    const el = document.querySelector(`[data-gt="${CSS.escape(id)}"]`);
    if (el) {
      if (mode === "hide") { setImportant(el, { visibility: "hidden" }); return null; }
      for (const d of el.querySelectorAll("*")) setImportant(d, { visibility: "hidden" });
      setImportant(el, { background: KEY, "background-image": "none", "border-color": KEY, color: KEY,
        appearance: "none", fill: KEY, stroke: "none", "box-shadow": "none", outline: "none" });
      const r = el.getBoundingClientRect();
      return [r.left, r.top, r.width, r.height];
    }
    const c = canvasOf(id);
    if (c) {
      c.draw(mode === "hide" ? { hide: id } : { key: id });
      undo.push(() => c.draw({}));
      return null;
    }
    if (!highlightRange(id, mode)) throw new Error(`No target ${id} on the page.`);
    return null;
  }

  window.__gt = {
    labels,
    canvas(el, items, draw, cross) { canvases.push({ el, items, draw, cross: !!cross }); draw({}); },
    hide: (id) => change(id, "hide"),
    key: (id) => change(id, "key"),
    restore() { while (undo.length) undo.pop()(); },
    plain() {
      // Shadows, outlines and text shadows paint outside an element's box; the check turns them off.
      const s = document.createElement("style");
      s.textContent = "*,*::before,*::after{box-shadow:none!important;text-shadow:none!important;outline:none!important}";
      document.head.appendChild(s);
    },
    harvest(limit) { return harvest(limit); },
  };

  // ---- harvesting: every visible interactive element of any page ----

  const INTERACTIVE = [
    "a[href]", "button", "input:not([type=hidden])", "select", "textarea", "summary",
    "[role=button]", "[role=link]", "[role=tab]", "[role=checkbox]", "[role=radio]", "[role=switch]",
    "[role=menuitem]", "[role=option]", "[role=slider]", "[role=combobox]", "[role=textbox]", "[role=treeitem]",
    "[onclick]", "[contenteditable=true]", "[tabindex]:not([tabindex='-1'])",
  ].join(",");

  function nameOf(el) {
    const aria = el.getAttribute("aria-label");
    if (aria && aria.trim()) return aria.trim();
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const t = by.split(/\s+/).map((i) => document.getElementById(i)?.innerText || "").join(" ").trim();
      if (t) return t;
    }
    const text = (el.innerText || "").replace(/\s+/g, " ").trim();
    if (text) return text.slice(0, 80);
    if (el.labels && el.labels.length) return (el.labels[0].innerText || "").trim().slice(0, 80);
    for (const attr of ["value", "placeholder", "title", "alt"]) {
      const v = el.getAttribute(attr);
      if (v && v.trim() && !(attr === "value" && el.tagName === "INPUT" && !["button", "submit", "reset"].includes(el.type))) return v.trim();
    }
    const img = el.querySelector("img[alt], svg[aria-label], [title]");
    return img ? (img.getAttribute("alt") || img.getAttribute("aria-label") || img.getAttribute("title") || "").trim() : "";
  }

  function roleOf(el) {
    const role = el.getAttribute("role");
    if (role) return role;
    const tag = el.tagName.toLowerCase();
    if (tag === "a") return "link";
    if (tag === "select") return "combobox";
    if (tag === "textarea") return "textbox";
    if (tag === "input") {
      const t = (el.type || "text").toLowerCase();
      if (["button", "submit", "reset", "image"].includes(t)) return "button";
      if (t === "checkbox" || t === "radio") return t;
      if (t === "range") return "slider";
      return "textbox";
    }
    return tag === "summary" || tag === "button" ? "button" : "generic";
  }

  function harvest(limit) {
    const cache = new Map();
    const out = [];
    const seen = new Set();
    for (const el of document.querySelectorAll(INTERACTIVE)) {
      if (el.disabled || el.closest("[aria-hidden=true]")) continue;
      const r = el.getBoundingClientRect();
      const why = judge(el, r, cache, false);
      if (why) continue;
      const key = [r.left, r.top, r.width, r.height].map((v) => Math.round(v)).join(",");
      if (seen.has(key)) continue;  // a label and its control, or nested handlers, with the same box
      seen.add(key);
      const text = (el.innerText || "").trim();
      out.push({ x: r.left, y: r.top, w: r.width, h: r.height, name: nameOf(el), role: roleOf(el),
        tag: el.tagName.toLowerCase(), has_text: text.length > 0 || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName) });
      if (limit && out.length >= limit) break;
    }
    return { labels: out, width: innerWidth, height: innerHeight };
  }
})();
