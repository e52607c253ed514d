// Game set-up form: players, Plażing terrain editor + weather, Strand unter buckets and face-up cards.
"use strict";
(function () {
  const form = document.getElementById("game-form");
  const gameSel = document.getElementById("game");
  const rows = Number(form.dataset.rows) || 12, cols = Number(form.dataset.cols) || 20;
  const tbody = document.querySelector("#players tbody");
  const DEFAULT = [["red", "#d32f2f"], ["yellow", "#fbc02d"], ["green", "#388e3c"], ["blue", "#1976d2"]];
  const SHELLS = ["white", "gray", "brown", "black"];
  const CYCLE = [".", "#", "+", "-", "x"];
  const CLS = { ".": "", "#": "c-hash", "+": "c-plus", "-": "c-minus", "x": "c-x" };

  // The swatch a colour label stands for: the game's own colours, else a CSS colour word (purple); null: none.
  const PALETTE = Object.fromEntries(DEFAULT);
  const paint = document.createElement("canvas").getContext("2d");
  function swatchFor(label) {
    const word = label.trim().toLowerCase();
    if (PALETTE[word]) return PALETTE[word];
    if (!/^[a-z]{3,20}$/.test(word) || !CSS.supports("color", word)) return null;
    paint.fillStyle = "#000000"; paint.fillStyle = word;
    return /^#[0-9a-f]{6}$/.test(paint.fillStyle) ? paint.fillStyle : null;
  }

  // A player is named by their colour label: two rows with one label would be one player (the
  // second row's name lost), so each repeated label is refused next to its row.
  function markRepeatedLabels() {
    const seen = new Map();
    let first = null;
    [...tbody.querySelectorAll("tr")].forEach((tr, i) => {
      const input = tr.querySelector(".p-label"), label = input.value.trim();
      const row = label ? seen.get(label) : undefined;
      const problem = row ? `"${label}" is already player ${row}'s colour: give each player their own colour label` : "";
      tr.querySelector(".p-error").textContent = problem;
      tr.classList.toggle("repeated", !!problem);
      input.setAttribute("aria-invalid", problem ? "true" : "false");
      if (label && !row) seen.set(label, i + 1);
      if (problem && !first) first = tr;
    });
    return first;
  }

  function addPlayer(label, colour) {
    const tr = document.createElement("tr");
    tr.innerHTML = `<td><input class="p-label" value="${esc(label || "")}" required maxlength="40" aria-label="colour label">
      <span class="p-error error" role="alert"></span></td>
      <td><input class="p-name" placeholder="name (optional)" maxlength="40"></td>
      <td><input class="p-colour" type="color" value="${esc(colour || "#888888")}"></td>
      <td><button type="button" class="remove">✕</button></td>`;
    tr.querySelector(".remove").onclick = () => { tr.remove(); markRepeatedLabels(); drawBuckets(); drawSecrets(); };
    const labelInput = tr.querySelector(".p-label"), swatch = tr.querySelector(".p-colour");
    swatch.addEventListener("input", () => { tr.dataset.swatchChosen = "yes"; });
    labelInput.addEventListener("input", () => {
      const colour = swatchFor(labelInput.value);
      if (colour && !tr.dataset.swatchChosen) swatch.value = colour;  // a swatch picked by hand stays
      markRepeatedLabels();
      drawBuckets(); drawSecrets();  // as it is typed: redrawn on leaving the field, the page would shift under the pointer
    });
    tbody.appendChild(tr);
  }
  function players() {
    return [...tbody.querySelectorAll("tr")].map(tr => ({
      label: tr.querySelector(".p-label").value.trim(), name: tr.querySelector(".p-name").value.trim(),
      colour: tr.querySelector(".p-colour").value })).filter(p => p.label);
  }
  DEFAULT.slice(0, 2).forEach(([l, c]) => addPlayer(l, c));
  const MAX_PLAYERS = 8;  // the server refuses more (web/inputs.py)
  document.getElementById("add-player").onclick = () => {
    if (tbody.querySelectorAll("tr").length >= MAX_PLAYERS) { say(`At most ${MAX_PLAYERS} players.`, "bad"); return; }
    const used = new Set(players().map(p => p.label));
    const next = DEFAULT.find(([l]) => !used.has(l)) || ["", "#888888"];
    addPlayer(next[0], next[1]); drawBuckets(); drawSecrets();
  };

  // Plażing terrain: click cycles the cell's character. Until a cell is clicked the terrain is not
  // entered and not sent: the scans read it from the photo (when the calibration can), never all sand.
  const readsTerrain = form.dataset.readsTerrain;  // yes, no, or unknown (no Plażing calibration yet)
  const terrain = Array.from({ length: rows }, () => Array(cols).fill("."));
  const grid = document.getElementById("terrain");
  const terrainState = document.getElementById("terrain-state"), clearBtn = document.getElementById("terrain-clear");
  let terrainEntered = false;
  function showTerrainState() {
    grid.classList.toggle("not-entered", !terrainEntered);
    terrainState.dataset.entered = terrainEntered ? "yes" : "no";
    clearBtn.hidden = !terrainEntered;
    terrainState.textContent = terrainEntered
      ? "Terrain entered: the scans of this game use it."
      : readsTerrain === "yes" ? "Terrain not entered: each scan reads it from the photo. Click the cells to enter it."
        : readsTerrain === "no" ? "Terrain not entered: click the cells to enter it (this calibration cannot read it from photos)."
          : "Terrain not entered: the scans read it from the photo when the Plażing calibration learned how it looks; " +
            "else click the cells to enter it.";
  }
  // the squares come drawn by the page, each row after its number, the column letters above
  grid.style.gridTemplateColumns = `auto repeat(${cols}, minmax(0, 1.6rem))`;
  const cells = [...grid.querySelectorAll("span[data-row]")];
  for (const cell of cells) {
    const r = Number(cell.dataset.row), c = Number(cell.dataset.col);
    cell.onclick = () => {
      const v = CYCLE[(CYCLE.indexOf(terrain[r][c]) + 1) % CYCLE.length];
      terrain[r][c] = v; cell.textContent = v;
      cell.className = (r === 0 ? "sea " : "") + CLS[v];
      if (!terrainEntered) { terrainEntered = true; showTerrainState(); }
    };
  }
  function drawTerrain() {
    cells.forEach(cell => {
      const r = Number(cell.dataset.row), v = terrain[r][Number(cell.dataset.col)];
      cell.textContent = v; cell.className = (r === 0 ? "sea " : "") + CLS[v];
    });
  }
  clearBtn.onclick = () => {
    terrain.forEach(row => row.fill("."));
    drawTerrain();
    terrainEntered = false; showTerrainState();
  };
  // the rows typed (or pasted) as text: on a phone a square is too small to tap
  const typed = document.getElementById("terrain-typed"), rowsBox = document.getElementById("terrain-rows");
  const rowsError = document.getElementById("terrain-rows-error");
  typed.addEventListener("toggle", () => {  // opened: the grid as it stands (clicks included)
    if (typed.open) rowsBox.value = terrainEntered ? terrain.map(r => r.join("")).join("\n") : "";
  });
  document.getElementById("terrain-use-rows").onclick = () => {
    // a phone may turn "..." into "…" and capitalise a row's first letter
    const lines = rowsBox.value.replace(/\u2026/g, "...").replace(/X/g, "x").split("\n")
      .map(l => l.replace(/\s+/g, "")).filter(l => l.length);
    const bad = lines.findIndex(l => l.length !== cols || [...l].some(ch => !CYCLE.includes(ch)));
    const odd = bad >= 0 ? [...lines[bad]].find(ch => !CYCLE.includes(ch)) : undefined;
    rowsError.textContent = lines.length !== rows ? `${lines.length} rows typed; the board has ${rows}.`
      : bad < 0 ? ""
      : odd !== undefined ? `Row ${bad + 1}: "${odd}" is not a square; each is one of . # + - x.`
      : `Row ${bad + 1}: ${lines[bad].length} squares; the board has ${cols} a row.`;
    if (rowsError.textContent) return;
    lines.forEach((l, r) => { terrain[r] = [...l]; });
    drawTerrain();
    terrainEntered = true; showTerrainState();
  };
  showTerrainState();

  // Strand unter: bucket counts and face-up cards per player.
  const buckets = document.getElementById("buckets");
  function drawBuckets() {
    const keep = collectBuckets(true);
    buckets.innerHTML = players().map(p => {
      const had = keep[p.label] || {};
      return `<fieldset data-player="${esc(p.label)}"><legend>${esc(p.label)}</legend>
        <div class="bucket">bucket: ${SHELLS.map(s => `<label>${s} <input type="number" min="0" max="20" class="b-${s}" placeholder="?" value="${had.bucket && had.bucket[s] !== undefined ? had.bucket[s] : ""}"></label>`).join("")}</div>
        <div class="cards"></div><button type="button" class="add-card">+ face-up card</button>
      </fieldset>`;
    }).join("");
    buckets.querySelectorAll("fieldset").forEach(fs => {
      fs.querySelector(".add-card").onclick = () => addCard(fs);
      ((keep[fs.dataset.player] || {}).open_cards || []).forEach(card => addCard(fs, card));
    });
  }
  function addCard(fs, card) {
    card = card || { value: 1, needs: {} };
    const div = document.createElement("div");
    div.className = "card-row";
    div.innerHTML = `card value <input type="number" min="0" max="3" class="c-value" value="${card.value}"> needs
      ${[...SHELLS, "any"].map(s => `<label>${s} <input type="number" min="0" max="7" class="n-${s}" value="${card.needs[s] || 0}"></label>`).join("")}
      <button type="button" class="remove">✕</button>`;
    div.querySelector(".remove").onclick = () => div.remove();
    fs.querySelector(".cards").appendChild(div);
  }
  // Per player: {bucket, open_cards}. A player whose bucket is left empty is unknown and left out
  // (unless ``all``), so the rules engine reports unfit shells and the total as unknown, as the hint says.
  function collectBuckets(all) {
    const out = {};
    buckets.querySelectorAll("fieldset").forEach(fs => {
      const raw = Object.fromEntries(SHELLS.map(s => [s, fs.querySelector(".b-" + s).value.trim()]));
      const known = SHELLS.some(s => raw[s] !== "");
      const open_cards = [...fs.querySelectorAll(".card-row")].map(div => {
        const needs = {};
        [...SHELLS, "any"].forEach(s => { const n = Number(div.querySelector(".n-" + s).value) || 0; if (n) needs[s] = n; });
        return { value: Number(div.querySelector(".c-value").value) || 0, needs };
      });
      if (!known && !all) return;
      const bucket = {};
      SHELLS.forEach(s => { if (raw[s] !== "" || !all) bucket[s] = Number(raw[s]) || 0; });
      out[fs.dataset.player] = { bucket, open_cards };
    });
    return out;
  }

  // Seashells: Sun shell, scoring mode, each player's secret cards (what the mats cannot show).
  const SS = JSON.parse(document.getElementById("seashells-data").textContent);
  const secretsBody = document.querySelector("#secrets tbody");
  function cardSelect(kind, names, value, n) {
    return `<select class="sec-${kind}" data-n="${n}" aria-label="${kind} card ${n + 1}"><option value="">—</option>` +
      names.map(x => `<option value="${esc(x)}" ${x === value ? "selected" : ""}>${esc(x)}</option>`).join("") + `</select>`;
  }
  function drawSecrets() {
    const keep = collectSecrets();
    secretsBody.innerHTML = players().map(p => {
      const k = keep[p.label] || { shapes: [], colours: [] };
      return `<tr data-player="${esc(p.label)}"><th>${esc(p.label)}</th>
        <td>${[0, 1].map(n => cardSelect("shape", SS.shapes, k.shapes[n], n)).join(" ")}</td>
        <td>${[0, 1].map(n => cardSelect("colour", SS.colours, k.colours[n], n)).join(" ")}</td></tr>`;
    }).join("");
  }
  function collectSecrets() {
    const out = {};
    secretsBody.querySelectorAll("tr").forEach(tr => {
      const pick = kind => [...tr.querySelectorAll(".sec-" + kind)].map(s => s.value).filter(Boolean);
      out[tr.dataset.player] = { shapes: pick("shape"), colours: pick("colour") };
    });
    return out;
  }
  function seashellsSetup(ps) {
    const setup = { players: ps.map(p => p.label), scoring: document.getElementById("ss-scoring").value };
    const shape = document.getElementById("ss-sun-shape").value, colour = document.getElementById("ss-sun-colour").value;
    if (shape && colour) setup.sun = { shape, colour };
    else if (shape || colour) throw new Error("Sun shell: choose both its shape and its colour (or neither)");
    const secrets = Object.fromEntries(Object.entries(collectSecrets())
      .filter(([p, c]) => setup.players.includes(p) && (c.shapes.length || c.colours.length)));
    if (Object.keys(secrets).length) setup.secrets = secrets;
    return setup;
  }

  function showParts() {
    const g = gameSel.value;
    document.querySelectorAll(".game-part").forEach(el => {
      el.hidden = !(el.dataset.game === g || (el.dataset.game === "other" && !["plazing", "strand-unter", "seashells"].includes(g)));
    });
  }
  gameSel.onchange = showParts;
  showParts(); drawBuckets(); drawSecrets();

  form.addEventListener("submit", async ev => {
    ev.preventDefault();
    const repeated = markRepeatedLabels();
    if (repeated) {
      say(`Two players have the colour label "${repeated.querySelector(".p-label").value.trim()}": ` +
          "give each player their own (the message is next to the row).", "bad");
      repeated.querySelector(".p-label").focus();
      return;
    }
    const g = gameSel.value, ps = players();
    let setup = {};
    if (g === "plazing") {
      const weather = document.getElementById("weather").value;  // "": rolled at the end, asked at Game over
      setup = Object.assign(weather ? { weather } : {}, { players: ps.map(p => p.label) });
      if (terrainEntered) setup.terrain = terrain.map(r => r.join(""));
    } else if (g === "strand-unter") {
      setup = { players: collectBuckets() };
    } else if (g === "seashells") {
      try { setup = seashellsSetup(ps); } catch (e) { say(e.message, "bad"); return; }
    } else {
      try { setup = JSON.parse(document.getElementById("setup-json").value || "{}"); }
      catch (e) { say("Set-up JSON: " + e.message, "bad"); return; }
    }
    const display = { swatches: Object.fromEntries(ps.map(p => [p.label, p.colour])),
                      names: Object.fromEntries(ps.filter(p => p.name).map(p => [p.label, p.name])) };
    try {
      const out = await api("POST", "/api/games", { game: g, setup, display });
      say(`Game ${out.game_id} started.`, "good");
      document.getElementById("to-live").hidden = false;
    } catch (e) { document.getElementById("to-live").hidden = true; say(explainError(e), "bad"); }
  });
})();
