// Correction editor: Strand unter grooves, a Plażing grid (click cells), Sand Castles lanes, or a generic JSON
// state; rescored as you type.
"use strict";
(function () {
  const root = document.getElementById("correct");
  const scanId = root.dataset.scanId;
  const editor = document.getElementById("editor");
  const SHELLS = ["white", "gray", "brown", "black"];
  let state = null, profile = null, H = null, hSize = null, lens = null, timer = null, players = [], scoreOpts = {};
  const photo = document.getElementById("photo");  // null when the scan kept no photo

  function clone(x) { return JSON.parse(JSON.stringify(x)); }

  // a rescore clears only its own earlier complaint, never a message such as "Saved as revision …"
  let rescoreComplained = false;
  async function rescore() {
    try {
      const out = await api("POST", `/api/scans/${scanId}/rescore`, { state: currentState() });
      document.getElementById("score").innerHTML = renderScore(out.score, scoreOpts);
      if (rescoreComplained) say("");
      rescoreComplained = false;
    } catch (e) { say(explainError(e), "bad"); rescoreComplained = true; }
  }
  function changed() { clearTimeout(timer); timer = setTimeout(rescore, 200); }

  // ---- Strand unter editor -------------------------------------------------------------
  function grooveRow(g) {
    const castles = g.castles.map((c, i) => `<span class="chip castle" data-i="${i}">
        <select class="c-player">${players.map(p => `<option ${p === c.player ? "selected" : ""}>${esc(p)}</option>`).join("")}</select>
        <select class="c-value">${[0, 1, 2, 3].map(v => `<option ${v === c.value ? "selected" : ""}>${v}</option>`).join("")}</select>
        <button type="button" class="c-remove" title="remove castle">✕</button></span>`).join("");
    return `<tr data-groove="${g.number}"><th>${g.number}</th>` +
      SHELLS.map(s => `<td data-label="${s}"><input type="number" min="0" max="30" class="s-${s}" value="${g.shells[s] || 0}" aria-label="groove ${g.number} ${s}"></td>`).join("") +
      `<td class="castles">${castles} <button type="button" class="c-add" title="add castle">+ castle</button></td></tr>`;
  }
  function drawStrand() {
    const seaOpts = Array.from({ length: 12 }, (_, i) => i + 1);
    editor.innerHTML = `<label>Sea front (lowest covered groove; 12 = none)
        <select id="sea-front">${seaOpts.map(n => `<option ${n === state.sea_front ? "selected" : ""}>${n}</option>`).join("")}</select></label>
      <label>Sandpiper in groove <select id="sandpiper"><option value="">not on board</option>
        ${Array.from({ length: 11 }, (_, i) => i + 1).map(n => `<option ${n === state.sandpiper ? "selected" : ""}>${n}</option>`).join("")}</select></label>
      <table class="edit" id="grooves"><thead><tr><th>groove</th>${SHELLS.map(s => `<th>${s}</th>`).join("")}<th>castles</th></tr></thead>
      <tbody>${state.grooves.map(grooveRow).join("")}</tbody></table>`;
    editor.querySelector("#sea-front").onchange = e => { setSeaFront(Number(e.target.value)); };
    editor.querySelector("#sandpiper").onchange = e => { state.sandpiper = e.target.value ? Number(e.target.value) : null; changed(); };
    editor.querySelectorAll("#grooves tr[data-groove]").forEach(tr => {
      const g = state.grooves.find(x => x.number === Number(tr.dataset.groove));
      SHELLS.forEach(s => { tr.querySelector(".s-" + s).oninput = e => { g.shells[s] = Math.max(0, Number(e.target.value) || 0); changed(); }; });
      tr.querySelectorAll(".castle").forEach(chip => {
        const c = g.castles[Number(chip.dataset.i)];
        chip.querySelector(".c-player").onchange = e => { c.player = e.target.value; changed(); };
        chip.querySelector(".c-value").onchange = e => { c.value = Number(e.target.value); changed(); };
        chip.querySelector(".c-remove").onclick = () => { g.castles.splice(Number(chip.dataset.i), 1); drawStrand(); select(g.number); changed(); };
      });
      tr.querySelector(".c-add").onclick = () => { g.castles.push({ player: players[0], value: 0 }); drawStrand(); select(g.number); changed(); };
    });
  }
  function setSeaFront(n) {
    state.sea_front = n;
    const have = new Map(state.grooves.map(g => [g.number, g]));
    state.grooves = Array.from({ length: n - 1 }, (_, i) => have.get(i + 1) ||
      { number: i + 1, shells: Object.fromEntries(SHELLS.map(s => [s, 0])), castles: [] });
    drawStrand(); changed();
  }
  function select(number) {
    editor.querySelectorAll("tr.selected").forEach(tr => tr.classList.remove("selected"));
    const tr = editor.querySelector(`tr[data-groove="${number}"]`);
    if (tr) { tr.classList.add("selected"); tr.scrollIntoView({ block: "nearest" }); tr.querySelector("input").focus(); }
    return !!tr;
  }

  // ---- photo clicks → board mm → groove -----------------------------------------------------
  function inv3(m) {
    const [a, b, c] = m[0], [d, e, f] = m[1], [g, h, i] = m[2];
    const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    const det = a * A + b * B + c * C;
    return [[A / det, -(b * i - c * h) / det, (b * f - c * e) / det],
            [B / det, (a * i - c * g) / det, -(a * f - c * d) / det],
            [C / det, -(a * h - b * g) / det, (a * e - b * d) / det]];
  }
  // Board mm ↔ px of the shown picture: the scan's homography onto the reader's undistorted image
  // (hSize px), then the calibration's lens, if any (the picture is the photo as taken), then the
  // picture's own scale. null without a homography or a loaded picture.
  function photoMap() {
    if (!H || !photo || !photo.naturalWidth) return null;
    const w = hSize ? hSize[0] : photo.naturalWidth, h = hSize ? hSize[1] : photo.naturalHeight;
    const k = photo.naturalWidth / w, Hi = inv3(H), L = lens && window.beachscoreLens;
    return {
      toPhoto(x, y) {
        const [u, v] = apply(H, x, y), [du, dv] = L ? L.distort(lens, w, h, u, v) : [u, v];
        return [du * k, dv * k];
      },
      toBoard(px, py) {
        const [u, v] = L ? L.undistort(lens, w, h, px / k, py / k) : [px / k, py / k];
        return apply(Hi, u, v);
      },
    };
  }
  function apply(m, x, y) {
    const w = m[2][0] * x + m[2][1] * y + m[2][2];
    return [(m[0][0] * x + m[0][1] * y + m[0][2]) / w, (m[1][0] * x + m[1][1] * y + m[1][2]) / w];
  }
  function inside(poly, x, y) {
    let hit = false;
    for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
      const [xi, yi] = poly[i], [xj, yj] = poly[j];
      if ((yi > y) !== (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) hit = !hit;
    }
    return hit;
  }
  if (photo) photo.addEventListener("click", ev => {
    if (pl) { const cell = photoCell(ev); if (cell) applyTool(...cell); else say("That is not on the grid."); return; }
    const map = photoMap();
    if (!map || !profile || !profile.grooves) return;
    const img = ev.target, r = img.getBoundingClientRect();
    const px = (ev.clientX - r.left) * img.naturalWidth / r.width, py = (ev.clientY - r.top) * img.naturalHeight / r.height;
    const [mx, my] = map.toBoard(px, py);
    const g = profile.grooves.find(g => inside(g.polygon_mm, mx, my));
    if (!g) { say(`That is not on a groove (${mx.toFixed(0)}, ${my.toFixed(0)} mm).`); return; }
    if (!select(g.number)) say(`Groove ${g.number} is under the sea front; raise the sea front first.`);
    else say(`Groove ${g.number}`);
  });

  // ---- Plażing editor: a grid drawn from the state; pick what to put, click cells -------------
  const PL_DEFAULT_KINDS = { screen: 3, blanket: 4, gear: 2 };  // kind -> most cells (profile catalogue wins)
  const FACINGS = ["N", "E", "S", "W"], ARROW = { N: "↑", E: "→", S: "↓", W: "←" };
  const RESOURCES = ["amber", "shell", "pebble"];
  const TOOLS = [["piece", "piece"], ["meeple", "meeple"], ["neutral", "neutral marker"], ["resource", "resource"],
                 ["trash", "trash"], ["surprise", "surprise"], ["empty", "empty (erase)"]];
  let pl = null;  // {kinds: {kind: max cells}, terrain, swatches, tool, selected}

  function plKinds() {
    const cat = profile && profile.pieces, out = {};
    if (cat && typeof cat === "object" && Object.keys(cat).length) {
      for (const [k, shapes] of Object.entries(cat)) out[k] = Math.max(1, ...shapes.map(s => s.length));
      return out;
    }
    return PL_DEFAULT_KINDS;
  }
  function colourOf(p) { return (pl.swatches && pl.swatches[p]) || p; }
  function same(a, r, c) { return a && a[0] === r && a[1] === c; }
  function plMap() {
    const m = new Map(), at = (r, c) => { const k = r + "," + c; if (!m.has(k)) m.set(k, {}); return m.get(k); };
    (state.pieces || []).forEach((p, i) => (p.cells || []).forEach(([r, c]) => { at(r, c).piece = i; }));
    (state.meeples || []).forEach(x => { at(...x.cell).meeple = x.player; });
    (state.neutral || []).forEach(cell => { at(...cell).neutral = true; });
    (state.resources || []).forEach(x => { at(...x.cell).token = "resource:" + x.kind; });
    (state.trash || []).forEach(cell => { at(...cell).token = "trash"; });
    (state.surprises || []).forEach(cell => { at(...cell).token = "surprise"; });
    return m;
  }
  function removePieceCell(r, c) {
    const i = (state.pieces || []).findIndex(p => p.cells.some(x => same(x, r, c)));
    if (i < 0) return;
    const p = state.pieces[i];
    p.cells = p.cells.filter(x => !same(x, r, c));
    if (!p.cells.length) {
      state.pieces.splice(i, 1);
      if (pl.selected === i) pl.selected = null; else if (pl.selected > i) pl.selected -= 1;
    }
  }
  function removeMarkers(r, c) {
    state.meeples = (state.meeples || []).filter(x => !same(x.cell, r, c));
    state.neutral = (state.neutral || []).filter(x => !same(x, r, c));
  }
  function removeTokens(r, c) {
    state.resources = (state.resources || []).filter(x => !same(x.cell, r, c));
    state.trash = (state.trash || []).filter(x => !same(x, r, c));
    state.surprises = (state.surprises || []).filter(x => !same(x, r, c));
  }
  function applyTool(r, c) {
    const t = pl.tool, here = plMap().get(r + "," + c) || {};
    if (t.what === "piece") {
      if (here.piece !== undefined) { pl.selected = here.piece; drawPlazing(); return; }  // select, no change
      removeMarkers(r, c); removeTokens(r, c);
      state.pieces = state.pieces || [];
      const sel = pl.selected !== null ? state.pieces[pl.selected] : null;
      const touches = sel && sel.cells.some(([a, b]) => Math.abs(a - r) + Math.abs(b - c) === 1);
      if (sel && touches && sel.player === t.player && sel.kind === t.kind && sel.cells.length < (pl.kinds[t.kind] || 1)) {
        sel.cells.push([r, c]);
      } else {
        const p = { player: t.player, kind: t.kind, cells: [[r, c]] };
        if (t.kind === "screen") p.facing = t.facing;
        state.pieces.push(p); pl.selected = state.pieces.length - 1;
      }
    } else {
      removePieceCell(r, c);
      if (t.what === "meeple" || t.what === "neutral") removeMarkers(r, c);
      if (["resource", "trash", "surprise", "empty"].includes(t.what)) removeTokens(r, c);
      if (t.what === "empty") removeMarkers(r, c);
      if (t.what === "meeple") (state.meeples = state.meeples || []).push({ player: t.player, cell: [r, c] });
      if (t.what === "neutral") (state.neutral = state.neutral || []).push([r, c]);
      if (t.what === "resource") (state.resources = state.resources || []).push({ kind: t.resource, cell: [r, c] });
      if (t.what === "trash") (state.trash = state.trash || []).push([r, c]);
      if (t.what === "surprise") (state.surprises = state.surprises || []).push([r, c]);
    }
    drawPlazing(); changed();
    say(`Cell [${r}, ${c}]`);
  }
  function opts(values, chosen, labels) {
    return values.map((v, i) => `<option value="${esc(v)}" ${v === chosen ? "selected" : ""}>${esc(labels ? labels[i] : v)}</option>`).join("");
  }
  function drawPlazing() {
    const t = pl.tool, kinds = Object.keys(pl.kinds);
    const sel = pl.selected !== null ? state.pieces[pl.selected] : null;
    editor.innerHTML = `<div class="pl-tools" id="pl-tools">
        <label>Put <select id="pl-what">${opts(TOOLS.map(x => x[0]), t.what, TOOLS.map(x => x[1]))}</select></label>
        <label class="pl-opt" data-for="piece meeple">player <select id="pl-player">${opts(players, t.player)}</select></label>
        <label class="pl-opt" data-for="piece">kind <select id="pl-kind">${opts(kinds, t.kind)}</select></label>
        <label class="pl-opt" data-for="piece">facing <select id="pl-facing">${opts(FACINGS, t.facing)}</select></label>
        <label class="pl-opt" data-for="resource">kind <select id="pl-resource">${opts(RESOURCES, t.resource)}</select></label>
      </div>
      <div id="pl-selected" class="pl-selected" ${sel ? "" : "hidden"}>${sel ? `Selected: <b>${esc(sel.player)} ${esc(sel.kind)}</b>, ${sel.cells.length} cell(s)
        <label>player <select id="sel-player">${opts(players, sel.player)}</select></label>
        <label>kind <select id="sel-kind">${opts(kinds, sel.kind)}</select></label>
        ${sel.kind === "screen" ? `<label>facing <select id="sel-facing">${opts(FACINGS, sel.facing)}</select></label>` : ""}
        <button type="button" id="sel-remove">remove piece</button> <button type="button" id="sel-done">done (next click starts a new piece)</button>` : ""}</div>
      <div id="pl-grid" class="terrain pl-grid"></div>`;
    editor.querySelectorAll(".pl-opt").forEach(l => { l.hidden = !l.dataset.for.split(" ").includes(t.what); });
    const bind = (id, key) => { editor.querySelector(id).onchange = e => { t[key] = e.target.value; drawPlazing(); }; };
    bind("#pl-what", "what"); bind("#pl-player", "player"); bind("#pl-kind", "kind"); bind("#pl-facing", "facing");
    bind("#pl-resource", "resource");
    if (sel) {
      editor.querySelector("#sel-player").onchange = e => { sel.player = e.target.value; drawPlazing(); changed(); };
      editor.querySelector("#sel-kind").onchange = e => {
        sel.kind = e.target.value;
        if (sel.kind === "screen") sel.facing = sel.facing || t.facing; else delete sel.facing;
        drawPlazing(); changed();
      };
      const f = editor.querySelector("#sel-facing");
      if (f) f.onchange = e => { sel.facing = e.target.value; drawPlazing(); changed(); };
      editor.querySelector("#sel-remove").onclick = () => { state.pieces.splice(pl.selected, 1); pl.selected = null; drawPlazing(); changed(); };
      editor.querySelector("#sel-done").onclick = () => { pl.selected = null; drawPlazing(); };
    }
    const grid = editor.querySelector("#pl-grid"), map = plMap(), rows = state.rows, cols = state.cols;
    grid.style.gridTemplateColumns = `repeat(${cols}, minmax(0, 1.6rem))`;
    const pieceAt = (r, c) => { const x = map.get(r + "," + c); return x ? x.piece : undefined; };
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) {
      const cell = document.createElement("span"), x = map.get(r + "," + c) || {};
      cell.dataset.row = r; cell.dataset.col = c;
      const ter = pl.terrain && pl.terrain[r] ? pl.terrain[r][c] : ".";
      let what = "empty", text = "";
      cell.className = { "#": "c-hash", "+": "c-plus", "-": "c-minus", "x": "c-x" }[ter] || "";
      if (r === 0) cell.classList.add("sea");
      if (x.piece !== undefined) {
        const p = state.pieces[x.piece];
        what = `piece:${p.player}:${p.kind}${p.kind === "screen" ? ":" + p.facing : ""}`;
        text = p.kind[0].toUpperCase() + (p.kind === "screen" ? ARROW[p.facing] || "" : "");
        cell.style.background = colourOf(p.player); cell.style.color = "#fff";
        cell.style.textShadow = "0 0 2px #000";
        const edge = "3px solid #000";
        if (pieceAt(r - 1, c) !== x.piece) cell.style.borderTop = edge;
        if (pieceAt(r + 1, c) !== x.piece) cell.style.borderBottom = edge;
        if (pieceAt(r, c - 1) !== x.piece) cell.style.borderLeft = edge;
        if (pieceAt(r, c + 1) !== x.piece) cell.style.borderRight = edge;
        if (x.piece === pl.selected) cell.classList.add("pl-sel");
      } else {
        const parts = [];
        if (x.meeple) { parts.push(`<b style="color:${esc(colourOf(x.meeple))}">●</b>`); what = "meeple:" + x.meeple; }
        if (x.neutral) { parts.push("◆"); what = "neutral"; }
        if (x.token) {
          parts.push({ "resource:amber": "a", "resource:shell": "s", "resource:pebble": "p", trash: "t", surprise: "?" }[x.token] || "•");
          what = what === "empty" ? x.token : what + "+" + x.token;
        }
        text = parts.join("");
      }
      cell.dataset.what = what;
      if (text.includes("<")) cell.innerHTML = text; else cell.textContent = text;
      cell.title = `[${r}, ${c}] ${what}`;
      cell.onclick = () => applyTool(r, c);
      grid.appendChild(cell);
    }
    root.dataset.pieces = (state.pieces || []).length;
    drawOverlay();
  }
  function drawOverlay() {  // the board grid drawn over the photo through the scan's registration
    const svg = document.getElementById("overlay"), img = photo, map = photoMap();
    const g = profile && profile.grid;
    if (!svg || !map || !g) return;
    const [ox, oy] = g.origin_mm, s = g.cell_mm, P = (x, y) => map.toPhoto(x, y).map(v => v.toFixed(1)).join(",");
    // a straight board line is a curve in a photo the lens bent: a point every quarter cell
    const line = (x0, y0, x1, y1) => {
      const n = lens ? Math.max(1, Math.ceil(4 * Math.hypot(x1 - x0, y1 - y0) / s)) : 1;
      return Array.from({ length: n + 1 }, (_, i) => P(x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n)).join(" ");
    };
    svg.setAttribute("viewBox", `0 0 ${img.naturalWidth} ${img.naturalHeight}`);
    svg.setAttribute("preserveAspectRatio", "none");
    let h = "";
    for (let r = 0; r <= state.rows; r++) h += `<polyline points="${line(ox, oy + r * s, ox + state.cols * s, oy + r * s)}"/>`;
    for (let c = 0; c <= state.cols; c++) h += `<polyline points="${line(ox + c * s, oy, ox + c * s, oy + state.rows * s)}"/>`;
    const sel = pl.selected !== null ? state.pieces[pl.selected] : null;
    (sel ? sel.cells : []).forEach(([r, c]) => {
      h += `<polygon class="sel" points="${P(ox + c * s, oy + r * s)} ${P(ox + (c + 1) * s, oy + r * s)} ${P(ox + (c + 1) * s, oy + (r + 1) * s)} ${P(ox + c * s, oy + (r + 1) * s)}"/>`;
    });
    svg.innerHTML = `<g fill="none" stroke="#ffeb3b" stroke-opacity=".6" stroke-width="${Math.max(1, img.naturalWidth / 800)}">${h}</g>`;
  }
  function startPlazing(data) {
    const setup = data.setup || {}, set = new Set();
    (Array.isArray(setup.players) ? setup.players : Object.keys(setup.players || {})).forEach(p => set.add(p));
    (state.pieces || []).forEach(p => set.add(p.player));
    (state.meeples || []).forEach(p => set.add(p.player));
    ["red", "yellow", "green", "blue"].forEach(p => set.add(p));
    players = [...set];
    const kinds = plKinds();
    pl = { kinds, terrain: setup.terrain || null, swatches: (data.display || {}).swatches || {}, selected: null,
           tool: { what: "piece", player: players[0], kind: Object.keys(kinds)[0], facing: "N", resource: "amber" } };
    document.getElementById("click-help").textContent = "Choose what to put, then click a cell (on the grid or on the photo). " +
      "A piece: click its first cell, then the cells next to it; click a piece to select it and change its colour, kind or facing. " +
      "The score updates at once.";
    drawPlazing();
    if (photo) photo.addEventListener("load", drawOverlay);
  }
  function photoCell(ev) {  // a click on the photo -> [row, col] of the Plażing grid, or null
    const g = profile && profile.grid, map = photoMap();
    if (!map || !g) return null;
    const img = ev.target, r = img.getBoundingClientRect();
    const px = (ev.clientX - r.left) * img.naturalWidth / r.width, py = (ev.clientY - r.top) * img.naturalHeight / r.height;
    const [mx, my] = map.toBoard(px, py);
    const row = Math.floor((my - g.origin_mm[1]) / g.cell_mm), col = Math.floor((mx - g.origin_mm[0]) / g.cell_mm);
    return row >= 0 && col >= 0 && row < state.rows && col < state.cols ? [row, col] : null;
  }

  // ---- Sand Castles: per-lane controls --------------------------------------------------
  function drawCastles() {
    const lanes = state.lanes || {};
    editor.innerHTML = `<table class="edit" id="lanes"><thead><tr><th>lane</th><th>wave space</th><th>wall</th><th>castle pieces</th><th>flooded</th></tr></thead><tbody>` +
      inOrder(Object.keys(lanes), LANES).map(name => [name, lanes[name]]).map(([name, l]) => `<tr data-lane="${esc(name)}"><th>${esc(name)}</th>
        <td><input type="number" class="l-wave" min="1" max="${Number(l.length) || 99}" value="${l.wave}" aria-label="${esc(name)} wave space"> of ${esc(l.length)}</td>
        <td><input type="checkbox" class="l-wall" ${l.wall ? "checked" : ""} aria-label="${esc(name)} wall"></td>
        <td><input type="number" class="l-pieces" min="0" max="9" value="${l.castle_pieces}" aria-label="${esc(name)} castle pieces"></td>
        <td><input type="checkbox" class="l-flooded" ${l.flooded ? "checked" : ""} aria-label="${esc(name)} flooded"></td></tr>`).join("") +
      `</tbody></table><label>Walls left (off the board; empty = unknown) <input type="number" id="walls-left" min="0" max="9" value="${state.walls_left === null || state.walls_left === undefined ? "" : state.walls_left}"></label>
      <details><summary>state (JSON)</summary><pre id="castles-json"></pre></details>`;
    const show = () => { editor.querySelector("#castles-json").textContent = JSON.stringify(state, null, 1); };
    editor.querySelectorAll("#lanes tr[data-lane]").forEach(tr => {
      const l = lanes[tr.dataset.lane];
      tr.querySelector(".l-wave").oninput = e => { l.wave = Number(e.target.value); show(); changed(); };
      tr.querySelector(".l-wall").onchange = e => { l.wall = e.target.checked; show(); changed(); };
      tr.querySelector(".l-pieces").oninput = e => { l.castle_pieces = Math.max(0, Number(e.target.value) || 0); show(); changed(); };
      tr.querySelector(".l-flooded").onchange = e => { l.flooded = e.target.checked; show(); changed(); };
    });
    editor.querySelector("#walls-left").oninput = e => { state.walls_left = e.target.value === "" ? null : Number(e.target.value); show(); changed(); };
    show();
    document.getElementById("click-help").textContent = "Set each lane's wave space, wall, castle pieces and flood; the score updates at once.";
  }

  // ---- generic JSON ---------------------------------------------------------------------
  function drawJson() {
    editor.innerHTML = `<label>State (JSON)<br><textarea id="state-json" rows="18" cols="60"></textarea></label>`;
    const ta = editor.querySelector("#state-json");
    ta.value = JSON.stringify(state, null, 1);
    ta.oninput = changed;
    document.getElementById("click-help").textContent = "Edit the state JSON; the score updates at once.";
  }
  function currentState() {
    const ta = document.getElementById("state-json");
    if (ta) return JSON.parse(ta.value);
    return state;
  }

  document.getElementById("save").onclick = async () => {
    clearTimeout(timer);  // the save's own score replaces the pending rescore's
    try {
      const out = await api("POST", `/api/scans/${scanId}/revisions`,
        { state: currentState(), note: document.getElementById("note").value });
      root.dataset.savedRevision = out.revision_id;
      document.getElementById("score").innerHTML = renderScore(out.score, scoreOpts);
      say(`Saved as revision ${out.revision_id}; the machine reading is kept.`, "good");
      rescoreComplained = false;
    } catch (e) { say(e instanceof SyntaxError ? "State JSON: " + e.message : explainError(e), "bad"); }
  };

  (async function load() {
    const data = await api("GET", `/api/scans/${scanId}`);
    const scan = data.scan;
    profile = data.profile; H = scan.extra && scan.extra.H_px_from_mm;
    hSize = scan.extra && scan.extra.H_image_size;
    lens = (scan.extra && scan.extra.lens) || null;
    scoreOpts = { swatches: (data.display || {}).swatches, names: (data.display || {}).names, game: scan.game,
                  gameOver: !!data.game_over };
    state = clone(scan.current_state);
    document.getElementById("machine-totals").textContent = totals(scan.score);
    document.getElementById("score").innerHTML = renderScore(scan.current_score, scoreOpts);
    if (scan.game === "strand-unter" && state && Array.isArray(state.grooves)) {
      const set = new Set(["red", "yellow", "green", "blue"]);
      state.grooves.forEach(g => g.castles.forEach(c => set.add(c.player)));
      const sp = data.setup && data.setup.players;
      if (sp) (Array.isArray(sp) ? sp : Object.keys(sp)).forEach(p => set.add(p));
      players = [...set];
      drawStrand();
    } else if (scan.game === "plazing" && state && Number.isInteger(state.rows) && Number.isInteger(state.cols)
               && state.rows <= 60 && state.cols <= 60) {
      startPlazing(data);
    } else if (scan.game === "sand-castles" && state && state.lanes && typeof state.lanes === "object"
               && Object.values(state.lanes).every(l => l && typeof l === "object")) {
      drawCastles();
    } else drawJson();
    root.dataset.ready = "yes";
  })().catch(e => say(e.message, "bad"));
})();
