// Correction editor: Strand unter grooves (shell counts, castles) or a generic JSON state; rescored as you type.
"use strict";
(function () {
  const root = document.getElementById("correct");
  const scanId = root.dataset.scanId;
  const editor = document.getElementById("editor");
  const SHELLS = ["white", "gray", "brown", "black"];
  let state = null, profile = null, H = null, timer = null, players = [];

  function clone(x) { return JSON.parse(JSON.stringify(x)); }

  async function rescore() {
    try {
      const out = await api("POST", `/api/scans/${scanId}/rescore`, { state: currentState() });
      document.getElementById("score").innerHTML = renderScore(out.score);
      say("");
    } catch (e) { say(explainError(e), "bad"); }
  }
  function changed() { clearTimeout(timer); timer = setTimeout(rescore, 200); }

  // ---- Strand unter editor -------------------------------------------------------------
  function grooveRow(g) {
    const castles = g.castles.map((c, i) => `<span class="chip castle" data-i="${i}">
        <select class="c-player">${players.map(p => `<option ${p === c.player ? "selected" : ""}>${esc(p)}</option>`).join("")}</select>
        <select class="c-value">${[0, 1, 2, 3].map(v => `<option ${v === c.value ? "selected" : ""}>${v}</option>`).join("")}</select>
        <button type="button" class="c-remove" title="remove castle">✕</button></span>`).join("");
    return `<tr data-groove="${g.number}"><th>${g.number}</th>` +
      SHELLS.map(s => `<td><input type="number" min="0" max="30" class="s-${s}" value="${g.shells[s] || 0}" aria-label="groove ${g.number} ${s}"></td>`).join("") +
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
  document.getElementById("photo").addEventListener("click", ev => {
    if (!H || !profile || !profile.grooves) return;
    const img = ev.target, r = img.getBoundingClientRect();
    const px = (ev.clientX - r.left) * img.naturalWidth / r.width, py = (ev.clientY - r.top) * img.naturalHeight / r.height;
    const [mx, my] = apply(inv3(H), px, py);
    const g = profile.grooves.find(g => inside(g.polygon_mm, mx, my));
    if (!g) { say(`That is not on a groove (${mx.toFixed(0)}, ${my.toFixed(0)} mm).`); return; }
    if (!select(g.number)) say(`Groove ${g.number} is under the sea front; raise the sea front first.`);
    else say(`Groove ${g.number}`);
  });

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
    try {
      const out = await api("POST", `/api/scans/${scanId}/revisions`,
        { state: currentState(), note: document.getElementById("note").value });
      root.dataset.savedRevision = out.revision_id;
      document.getElementById("score").innerHTML = renderScore(out.score);
      say(`Saved as revision ${out.revision_id}; the machine reading is kept.`, "good");
    } catch (e) { say(e instanceof SyntaxError ? "State JSON: " + e.message : explainError(e), "bad"); }
  };

  (async function load() {
    const data = await api("GET", `/api/scans/${scanId}`);
    const scan = data.scan;
    profile = data.profile; H = scan.extra && scan.extra.H_px_from_mm;
    state = clone(scan.current_state);
    document.getElementById("machine-totals").textContent = totals(scan.score);
    document.getElementById("score").innerHTML = renderScore(scan.current_score);
    if (scan.game === "strand-unter" && state && Array.isArray(state.grooves)) {
      const set = new Set(["red", "yellow", "green", "blue"]);
      state.grooves.forEach(g => g.castles.forEach(c => set.add(c.player)));
      const sp = data.setup && data.setup.players;
      if (sp) (Array.isArray(sp) ? sp : Object.keys(sp)).forEach(p => set.add(p));
      players = [...set];
      drawStrand();
    } else drawJson();
    root.dataset.ready = "yes";
  })().catch(e => say(e.message, "bad"));
})();
