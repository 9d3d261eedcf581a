// venuskit CAPTCHA widgets. One static file for every instance: the page's config says which widget
// to run and its public sizes; it never holds the answer. The widget keeps its state and a pointer
// log, and posts both once, on Verify (or when the harness calls window.venusCaptcha.submit()).
(() => {
  "use strict";
  const cfg = JSON.parse(document.getElementById("vc-config").textContent);
  const P = cfg.params;
  const root = document.querySelector(".vc");
  const T0 = performance.now();
  const log = [];
  const state = {};
  const part = (name) => root.querySelector(`[data-part="${name}"]`);
  const r1 = (v) => Math.round(v * 10) / 10;
  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
  const mod = (a, n) => ((a % n) + n) % n;

  function note(type, el, x, y) {
    if (log.length >= 500) return;
    const rr = root.getBoundingClientRect();
    const ev = { t: r1(performance.now() - T0), type, part: (el && el.dataset && el.dataset.part) || "" };
    if (x !== undefined) { ev.x = r1(x - rr.left); ev.y = r1(y - rr.top); }
    log.push(ev);
  }
  function rel(el, x, y) {
    const r = el.getBoundingClientRect();
    return [x - r.left, y - r.top];
  }
  // A press-move-release gesture on `el` (mouse or touch, through pointer events).
  function gesture(el, down, move, up) {
    el.addEventListener("pointerdown", (e) => {
      if (e.button !== undefined && e.button > 0) return;
      e.preventDefault();
      try { el.setPointerCapture(e.pointerId); } catch (_) { /* a synthetic pointer */ }
      note("down", el, e.clientX, e.clientY);
      const ctx = down(e) || {};
      let last = [e.clientX, e.clientY];
      const onMove = (ev) => { if (ev.pointerId !== e.pointerId) return; last = [ev.clientX, ev.clientY]; move(ev.clientX, ev.clientY, ctx); };
      const onUp = (ev) => {
        if (ev.pointerId !== e.pointerId) return;
        el.removeEventListener("pointermove", onMove);
        el.removeEventListener("pointerup", onUp);
        el.removeEventListener("pointercancel", onUp);
        const at = ev.type === "pointercancel" ? last : [ev.clientX, ev.clientY];
        note(ev.type === "pointercancel" ? "cancel" : "up", el, at[0], at[1]);
        up(at[0], at[1], ctx);
      };
      el.addEventListener("pointermove", onMove);
      el.addEventListener("pointerup", onUp);
      el.addEventListener("pointercancel", onUp);
    });
  }
  // A tap: press and release within a few pixels. Calls fn(clientX, clientY) at the press point.
  function onTap(el, fn) {
    gesture(el, (e) => ({ x: e.clientX, y: e.clientY, t: performance.now() }), () => {}, (x, y, c) => {
      if (Math.hypot(x - c.x, y - c.y) <= 12) fn(c.x, c.y);
    });
  }
  function img(src, w, h, cls) {
    const i = new Image(w, h);
    i.src = src; i.className = cls || "vc-img"; i.alt = ""; i.draggable = false;
    return i;
  }

  const widgets = {
    text() {
      const input = part("input");
      state.text = "";
      input.addEventListener("input", () => { state.text = input.value; note("key", input); });
    },
    click() {
      const stage = part("image"), marks = stage.querySelector(".vc-marks");
      state.points = []; state.dbl = [];
      let prev = null;
      onTap(stage, (cx, cy) => {
        const [x, y] = rel(stage, cx, cy), now = performance.now();
        if (state.points.length >= (P.max || 12)) return;
        note("tap", stage, cx, cy);
        state.points.push([r1(x), r1(y)]);
        if (prev && now - prev.t < 500 && Math.hypot(x - prev.x, y - prev.y) < 16 && state.dbl.length < 32) {
          state.dbl.push([r1(x), r1(y)]); note("dbl", stage, cx, cy); prev = null;
        } else prev = { x, y, t: now };
        const m = document.createElement("div");
        m.className = "vc-mark"; m.textContent = String(state.points.length);
        m.style.left = `${x}px`; m.style.top = `${y}px`;
        marks.appendChild(m);
      });
    },
    grid() {
      state.selected = [];
      root.querySelectorAll(".vc-cell").forEach((cell) => {
        const i = Number(cell.dataset.part.slice(5));
        onTap(cell, () => {
          const k = state.selected.indexOf(i);
          if (k >= 0) state.selected.splice(k, 1); else state.selected.push(i);
          cell.classList.toggle("sel", k < 0);
        });
      });
    },
    slider() {
      const handle = part("handle"), fill = root.querySelector(".vc-fill"), max = P.track - 44;
      const bg = root.querySelector(".vc-bg"), piece = part("piece"), marker = part("marker");
      const frames = [];
      if (P.mode === "frames") for (let k = 0; k < P.frames; k++) frames.push(`${cfg.assets}frame-${k}.png`);
      frames.forEach((src) => { new Image().src = src; });
      state.value = 0;
      const show = (v) => {
        handle.style.left = `${v}px`; fill.style.width = `${v + 44}px`;
        if (P.mode === "piece") piece.style.left = `${P.piece[0] + v}px`;
        if (P.mode === "rotate") bg.style.transform = `rotate(${v * P.deg}deg)`;
        if (P.mode === "inner") piece.style.transform = `rotate(${v * P.deg}deg)`;
        if (P.mode === "marker") marker.style.left = `${P.marker + v}px`;
        if (P.mode === "frames") bg.src = frames[clamp(Math.floor(v / P.step), 0, P.frames - 1)];
      };
      if (P.mode === "frames") bg.src = frames[0];
      gesture(handle, (e) => ({ v0: state.value, x0: e.clientX }), (x, y, c) => {
        state.value = clamp(c.v0 + x - c.x0, 0, max); show(state.value);
      }, (x, y, c) => {
        state.value = r1(clamp(c.v0 + x - c.x0, 0, max)); show(state.value);
      });
    },
    drag() {
      const board = part("board");
      state.pieces = P.pieces.map(([x, y, w, h]) => [x + w / 2, y + h / 2]);
      P.pieces.forEach(([x0, y0, w, h], i) => {
        const el = part(`piece-${i}`);
        gesture(el, (e) => ({ cx: e.clientX, cy: e.clientY, x: parseFloat(el.style.left), y: parseFloat(el.style.top) }),
          (x, y, c) => {
            const nx = clamp(c.x + x - c.cx, 0, P.w - w), ny = clamp(c.y + y - c.cy, 0, P.board_h - h);
            el.style.left = `${nx}px`; el.style.top = `${ny}px`;
            state.pieces[i] = [r1(nx + w / 2), r1(ny + h / 2)];
          }, () => {});
      });
      board.addEventListener("dragstart", (e) => e.preventDefault());
    },
    swap() {
      const board = part("board"), [tw, th] = P.tile, n = P.rows * P.cols;
      const slotAt = (x, y) => {
        const c = Math.floor(x / (tw + P.gap)), r = Math.floor(y / (th + P.gap));
        const inX = x - c * (tw + P.gap) <= tw, inY = y - r * (th + P.gap) <= th;
        return (c >= 0 && c < P.cols && r >= 0 && r < P.rows && inX && inY) ? r * P.cols + c : -1;
      };
      const put = (tile, slot) => {
        const el = part(`tile-${tile}`);
        el.style.left = `${(slot % P.cols) * (tw + P.gap)}px`; el.style.top = `${Math.floor(slot / P.cols) * (th + P.gap)}px`;
        el.style.transform = "";
      };
      state.order = Array.from({ length: n }, (_, i) => i);
      for (let t = 0; t < n; t++) {
        const el = part(`tile-${t}`);
        gesture(el, (e) => { el.classList.add("lift"); return { cx: e.clientX, cy: e.clientY }; },
          (x, y, c) => { el.style.transform = `translate(${x - c.cx}px,${y - c.cy}px)`; },
          (x, y) => {
            el.classList.remove("lift");
            const from = state.order.indexOf(t), [bx, by] = rel(board, x, y), to = slotAt(bx, by);
            if (to >= 0 && to !== from) {
              const other = state.order[to];
              state.order[to] = t; state.order[from] = other; put(other, from);
            }
            put(t, state.order.indexOf(t));
          });
      }
    },
    line() {
      const stage = part("image"), svg = stage.querySelector("svg"), NS = "http://www.w3.org/2000/svg";
      state.segments = [];
      const seg = () => {
        const l = document.createElementNS(NS, "line");
        l.setAttribute("stroke", getComputedStyle(root).getPropertyValue("--accent") || "#2563eb");
        l.setAttribute("stroke-width", "5"); l.setAttribute("stroke-linecap", "round");
        svg.appendChild(l); return l;
      };
      gesture(stage, (e) => { const [x, y] = rel(stage, e.clientX, e.clientY); const l = seg(); l.setAttribute("x1", x); l.setAttribute("y1", y); l.setAttribute("x2", x); l.setAttribute("y2", y); return { x, y, l }; },
        (cx, cy, c) => { const [x, y] = rel(stage, cx, cy); c.l.setAttribute("x2", x); c.l.setAttribute("y2", y); },
        (cx, cy, c) => {
          const [x, y] = rel(stage, cx, cy);
          if (Math.hypot(x - c.x, y - c.y) < 4 || state.segments.length >= 64) { c.l.remove(); return; }
          c.l.setAttribute("x2", x); c.l.setAttribute("y2", y);
          state.segments.push([r1(c.x), r1(c.y), r1(x), r1(y)]);
        });
    },
    arrows() {
      const stage = part("image"), pic = stage.querySelector(".vc-img"), token = part("token");
      const walls = new Set((P.walls || []).map(([r, c]) => `${r},${c}`));
      state.value = P.start || 0; state.pos = (P.grid_start || [0, 0]).slice();
      const show = () => {
        if (P.mode === "index") pic.src = `${cfg.assets}frame-${mod(state.value, P.n)}.png`;
        if (P.mode === "rotate") pic.style.transform = `rotate(${state.value * P.step}deg)`;
        if (P.mode === "grid") {
          token.style.left = `${P.x0 + (state.pos[1] + 0.5) * P.cell}px`; token.style.top = `${P.y0 + (state.pos[0] + 0.5) * P.cell}px`;
        }
        if (P.mode === "orbit") {
          const a = (2 * Math.PI * mod(state.value, P.n)) / P.n - Math.PI / 2;
          token.style.left = `${P.cx + P.r * Math.cos(a)}px`; token.style.top = `${P.cy + P.r * Math.sin(a)}px`;
        }
      };
      const ops = {
        prev: () => { state.value = mod(state.value - 1, P.n); }, next: () => { state.value = mod(state.value + 1, P.n); },
        ccw: () => { state.value = mod(state.value - 1, P.n); }, cw: () => { state.value = mod(state.value + 1, P.n); },
      };
      const moves = { up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1] };
      Object.entries(moves).forEach(([k, [dr, dc]]) => {
        ops[k] = () => {
          const r = state.pos[0] + dr, c = state.pos[1] + dc;
          if (r >= 0 && r < P.rows && c >= 0 && c < P.cols && !walls.has(`${r},${c}`)) state.pos = [r, c];
        };
      });
      if (P.mode === "index") for (let k = 0; k < P.n; k++) new Image().src = `${cfg.assets}frame-${k}.png`;
      root.querySelectorAll(".vc-btn").forEach((b) => {
        const op = b.dataset.part.slice(4);
        onTap(b, () => { ops[op](); note("op", b); show(); });
      });
      show();
    },
    hold() {
      const btn = part("hold");
      state.held_ms = 0; state.presses = 0;
      btn.style.setProperty("--fill-ms", `${P.fill_ms || 1000}ms`);
      btn.addEventListener("contextmenu", (e) => e.preventDefault());
      gesture(btn, () => { btn.classList.add("holding"); return { t: performance.now() }; }, () => {}, (x, y, c) => {
        btn.classList.remove("holding");
        state.held_ms = Math.round(performance.now() - c.t); state.presses += 1;
      });
    },
  };

  widgets[cfg.kind]();
  if (cfg.robot) {
    const box = part("robot");
    state.robot = false;
    onTap(box, () => { state.robot = !state.robot; box.setAttribute("aria-checked", String(state.robot)); });
  }
  root.addEventListener("dragstart", (e) => e.preventDefault());
  root.addEventListener("contextmenu", (e) => e.preventDefault());

  const snapshot = () => JSON.parse(JSON.stringify(state));
  let pending = null;
  function submit() {
    if (pending) return pending;
    const status = part("status");
    status.textContent = "Checking…";
    pending = fetch(cfg.post, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ state: snapshot(), log, elapsed_ms: r1(performance.now() - T0) }),
    }).then((r) => r.json()).catch(() => ({ ok: false, passed: false, reason: "network error" })).then((res) => {
      status.textContent = res.passed ? "Verified ✓" : "Verification failed";
      return res;
    });
    return pending;
  }
  part("verify").addEventListener("click", submit);
  const note2 = document.querySelector(".hp-note"), submitBtn = document.querySelector(".hp-submit");
  if (submitBtn) submitBtn.addEventListener("click", () => { if (note2) note2.textContent = "Please complete the security check first."; });
  window.venusCaptcha = Object.freeze({ submit, state: snapshot });
})();
