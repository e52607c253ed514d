// Live page, a game followed scan after scan: what changed since the last accepted reading, the
// timeline's facts, a forbidden change with both photos, and Game over's questions with counters.
"use strict";
(function () {
  const card = () => document.getElementById("follow");
  const who = (p, display) => `<span class="swatch" style="background:${esc((display.swatches || {})[p] || p)}"></span>${esc(p)}` +
    ((display.names || {})[p] ? ` <small>${esc(display.names[p])}</small>` : "");

  // The other games' facts (Strand unter, Sand Castles), one line each in the game's words.
  const FACT_WORDS = { built: "Castles built", washed: "Castles the sea washed away", taken: "Shells taken from the grooves",
                       bought: "Bought", waves: "Waves broken on a wall" };
  const castle = x => x.player !== undefined ? `${x.player}'s castle ${x.value} (groove ${x.groove})` : JSON.stringify(x);
  function factValue(v) {
    if (Array.isArray(v)) return v.length ? v.map(x => (x && typeof x === "object") ? castle(x) : String(x)).join(", ") : "none";
    if (v && typeof v === "object") {
      const got = Object.entries(v).filter(([, n]) => n).map(([k, n]) => `${n} ${k.replace(/_/g, " ")}`);
      return got.length ? got.join(", ") : "none";
    }
    return String(v);
  }

  // The timeline's facts: Plażing's table per player, the other games' lines; never nothing.
  function factsHtml(t, display) {
    if (!t) return `<p class="muted" id="timeline-facts">Empty: no scan of this game was accepted yet.</p>`;
    const notes = (t.notes || []).map(n => `<p class="muted">${esc(n)}</p>`).join("");
    if (t.closings) return plazingFactsHtml(t, display) + notes;
    const keys = Object.keys(t).filter(k => k !== "readings" && k !== "notes");
    if (!keys.length) return `<p class="muted" id="timeline-facts">This game's timeline learns nothing the score needs.</p>` + notes;
    return `<ul id="timeline-facts" class="facts">` + keys.map(k =>
      `<li data-fact="${esc(k)}">${esc(FACT_WORDS[k] || k.replace(/_/g, " "))}: ${esc(factValue(t[k]))}</li>`).join("") +
      `</ul>` + notes;
  }

  function plazingFactsHtml(t, display) {
    const sure = t.closings_at_least || t.closings;
    const players = Object.keys(sure);
    const anyone = [...players, ...Object.keys(t.collected || {}), ...Object.keys(t.track || {})];
    if (!anyone.length) return `<p class="muted" id="timeline-facts">No area closed and nothing collected yet.</p>`;
    const doubted = p => (t.doubted_closings || []).filter(d => (d.candidates || []).includes(p)).length;
    const closed = p => t.closings[p] !== undefined ? `${t.closings[p]}`
      : `${sure[p]} to ${sure[p] + doubted(p)} (the photos cannot tell who closed ${doubted(p)})`;
    let h = `<table class="score timeline" id="timeline-facts"><thead><tr><th>Player</th><th>areas closed</th><th>collected</th><th>track</th></tr></thead><tbody>`;
    for (const p of players) {
      const got = Object.entries((t.collected || {})[p] || {}).filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(", ") || "—";
      h += `<tr data-player="${esc(p)}"><td>${who(p, display)}</td><td>${esc(closed(p))}</td><td>${esc(got)}</td>` +
        `<td>${t.track && t.track[p] !== undefined ? t.track[p] : "—"}</td></tr>`;
    }
    return h + `</tbody></table>`;
  }

  function stepHtml(f) {
    const s = f.step;
    if (!s) return "";
    let h = "";
    if (s.impossible.length) {
      h += `<div class="impossible" id="impossible"><p class="error">Not accepted: the rules forbid what this photo shows. ` +
        `Check the board (or correct the scan); the game goes on from the last accepted reading.</p>` +
        `<ul>${s.impossible.map(c => `<li>${esc(c.text)}</li>`).join("")}</ul>` +
        `<div class="side-by-side">` +
        (f.previous_photo_id ? `<figure><img src="/photos/${f.previous_photo_id}" alt="last accepted photo"><figcaption>last accepted (scan ${f.previous_scan_id})</figcaption></figure>` : "") +
        (f.photo_id ? `<figure><img src="/photos/${f.photo_id}" alt="this photo"><figcaption>this photo</figcaption></figure>` : "") +
        `</div></div>`;
    } else if (!s.accepted) {
      h += `<p class="error">Not accepted: this photo is unsure; take it again.</p>`;
    }
    if (s.accepted && f.timeline && f.timeline.readings === 1) {  // the first: its changes are the totals below
      return h + `<p id="changes" class="muted">The game's first photo: everything it shows is below.</p>`;
    }
    const label = s.revision_id ? "Corrected by a player: accepted. Since the last accepted reading" : "Since the last accepted reading";
    h += `<h3 id="changes-heading">${label}</h3>` + (s.changes.length
      ? `<ul id="changes">${s.changes.map(c => `<li data-kind="${esc(c.kind)}">${esc(c.text)}</li>`).join("")}</ul>`
      : `<p id="changes" class="muted">nothing changed</p>`);
    return h;
  }

  // While the game runs: what Game over will ask (the station's needed_at_end), one quiet line, so
  // the players keep what they will have to tell (Strand unter: the shells left in each bucket).
  function neededAtEndHtml(f) {
    const needs = f.needed_at_end || [];
    if (!needs.length) return "";
    return `<p class="muted" id="needed-at-end">For the final score, Game over will ask: ${esc(needs.join("; "))}.</p>`;
  }

  function questionHtml(q) {
    if (q.kind === "choice") {
      return `<label class="question">${esc(q.text)} <select data-key="${esc(q.key)}"${q.value === null ? " required" : ""}>` +
        (q.value === null ? `<option value="" selected disabled>choose…</option>` : "") +
        q.choices.map(([v, words]) => `<option value="${esc(v)}"${v === q.value ? " selected" : ""}>${esc(words)}</option>`).join("") +
        `</select></label>`;
    }
    // a counter without a default shows "—" (not given) until a player sets it: − makes it 0, + makes it 1
    const given = q.value !== null && q.value !== undefined;
    return `<div class="question counter" data-key="${esc(q.key)}" data-max="${q.max}"${given ? " data-given" : ""}>` +
      `<button type="button" class="minus" aria-label="one less">−</button><output title="${given ? "" : "not given"}">${given ? q.value : "—"}</output>` +
      `<button type="button" class="plus" aria-label="one more">+</button> <span>${esc(q.text)}</span></div>`;
  }

  function questionsHtml(e) {
    const unset = e.questions.some(q => q.kind === "count" && (q.value === null || q.value === undefined));
    return `<h2>Game over: a few questions</h2><p class="muted">Only what neither the photos nor the game's timeline can know.` +
      (unset ? ` A count left at — is not given: that player's total stays unknown.` : "") + `</p>` +
      `<form id="questions">${e.questions.map(questionHtml).join("")}` +
      `<p><button type="submit" id="finish-game" class="big primary">Finish the game</button></p></form>`;
  }

  // Final totals best first (the score's ranking; ties in the Game page's order), the winner starred
  // as on the score card: only when the totals that decide it are known (score.js's winnerKnown).
  function ranked(score, display) {
    const place = new Map();
    (score.ranking || []).forEach((group, i) => (group || []).forEach(p => place.set(p, i)));
    const at = p => (place.has(p.player) ? place.get(p.player) : place.size);
    return inGameOrder(score.players || [], display.swatches).sort((a, b) => at(a) - at(b));  // a stable sort
  }

  function totalsHtml(e, display) {
    const score = e.score || {};
    const players = ranked(score, display);
    const won = new Set(typeof winnerKnown === "function" && players.length && winnerKnown(score) ? score.winners : []);
    return `<h2>Final totals</h2><ul id="totals" class="totals">` + players.map(p =>
      `<li data-player="${esc(p.player)}"${won.has(p.player) ? ' class="winner"' : ""}>${who(p.player, display)}: <b class="total">${p.total === null || p.total === undefined ? "not known" : p.total}</b>` +
      `${won.has(p.player) ? ' <span class="star" title="winner">★</span>' : ""}</li>`).join("") +
      `</ul>` + stillUnknown(score, players);
  }

  // The facts still missing, named only while some total is not known: a fact the totals can do
  // without (the score track once every closing was counted) is not worth a line.
  function stillUnknown(score, players) {
    const open = players.some(p => p.total === null || p.total === undefined);
    return open && score.missing && score.missing.length ? `<p class="muted" id="still-unknown">still not known: ${esc(score.missing.join(", "))}</p>` : "";
  }

  function wire(el) {
    el.querySelectorAll(".counter").forEach(c => {
      const out = c.querySelector("output"), max = Number(c.dataset.max);
      const set = n => { out.textContent = n; out.title = ""; c.dataset.given = ""; };
      const now = () => ("given" in c.dataset ? Number(out.textContent) : null);
      c.querySelector(".minus").addEventListener("click", () => set(now() === null ? 0 : Math.max(0, now() - 1)));
      c.querySelector(".plus").addEventListener("click", () => set(now() === null ? 1 : Math.min(max, now() + 1)));
    });
    const form = el.querySelector("#questions");
    if (!form) return;
    form.addEventListener("submit", async ev => {
      ev.preventDefault();
      const answers = {};
      form.querySelectorAll(".counter[data-given]").forEach(c => { answers[c.dataset.key] = Number(c.querySelector("output").textContent); });
      form.querySelectorAll("select[data-key]").forEach(s => { answers[s.dataset.key] = s.value; });
      try {
        await api("POST", "/api/game-answers", { answers });
        say("Game over: every player's total is below.", "good");
      } catch (e) { say(explainError(e), "bad"); }
    });
  }

  window.renderFollow = function (f, st) {
    const el = card();
    if (!el) return;
    const e = f && f.ending, asking = !!(e && e.answers === null && e.questions.length);
    document.body.classList.toggle("game-over-asking", asking);  // the score card's "Asked at Game over" hides
    if (!f) { el.hidden = true; el.innerHTML = ""; el.dataset.key = ""; return; }
    const key = asking ? `ask/${e.game_id}/${e.created_at}` : JSON.stringify(f);
    if (el.dataset.key === key) return;  // a form being filled in is left alone
    el.dataset.key = key;
    const display = (st.game && st.game.display) || {};
    let h;
    if (asking) h = questionsHtml(e);
    else if (e && e.answers !== null && e.score) h = totalsHtml(e, display) + `<h3>The game's timeline</h3>` + factsHtml(f.timeline, display);
    else {
      const step = stepHtml(f);  // the latest scan's changes, then the whole game's timeline
      h = (step ? `<h2>The latest scan</h2>` + step + `<h3 id="totals-heading">The game's timeline</h3>`
        : `<h2 id="totals-heading">The game's timeline</h2>`) + factsHtml(f.timeline, display) + neededAtEndHtml(f);
    }
    el.innerHTML = h;
    el.hidden = false;
    el.dataset.state = asking ? "asking" : (e && e.score ? "over" : "playing");
    wire(el);
  };
})();
