// Live page: show the latest scan; refresh when the station says a scan landed (SSE), else poll.
"use strict";
(function () {
  const root = document.getElementById("live");
  const pollMs = Number(root.dataset.pollMs) || 3000;
  let shownKey = null, pollTimer = null;

  function statusHtml(st) {
    const out = [];
    if (!st.camera.ok) out.push(`Camera missing: ${esc(st.camera.problem || "")}`);
    if (!st.calibration.ok) out.push(`${esc(st.calibration.problem || "not calibrated")}`);
    if (!st.game) out.push(`No game set up yet: <a href="/game">set up a game</a>.`);
    else if (st.game.ended_at) out.push(`Game ${st.game.id} is over — final score below.`);
    return out.map(t => `<p>${t}</p>`).join("");
  }

  // Seashells: one scan per player's mat; the combined score of every player's latest mat.
  function seashellsHtml(t, display) {
    const swatches = display.swatches || {}, names = display.names || {};
    const sc = t.score, rows = {}, rank = {};
    if (sc) {
      sc.players.forEach(p => { rows[p.player] = p; });
      (sc.ranking || []).forEach((group, i) => group.forEach(p => { rank[p] = i + 1; }));
    }
    const winners = new Set((sc && sc.winners) || []);
    const who = p => `<span class="swatch" style="background:${esc(swatches[p] || p)}"></span>${esc(p)}` +
      (names[p] ? ` <small>${esc(names[p])}</small>` : "");
    let h = `<h2>Seashells · ${t.complete ? "every mat read" : "provisional: mats missing"}</h2>`;
    if (t.missing.length) {
      h += `<p class="missing" id="mats-missing">Still to read: ${t.missing.map(p => `<b>${who(p)}</b>`).join(", ")}.` +
        (t.next ? ` The button (or “Scan now”) reads <b>${esc(t.next)}</b>'s mat next.` : "") + `</p>`;
    }
    h += `<table class="score seashells"><thead><tr><th>Player</th><th>Mat</th><th>Category coins</th><th>Fossil pairs</th>` +
      `<th>Sand dollars</th><th>Total</th><th>Rank</th><th></th></tr></thead><tbody>`;
    for (const p of t.players) {
      const mat = t.mats[p], r = rows[p];
      const cats = r ? Object.entries(r.categories) : [];
      const coins = cats.reduce((a, [, n]) => a + n, 0);
      h += `<tr data-player="${esc(p)}" class="${mat ? "read" : "missing"} ${winners.has(p) ? "winner" : ""}">` +
        `<td>${who(p)}${winners.has(p) && t.complete ? ' <span class="star" title="winner">★</span>' : ""}` +
        (r && !r.secrets_known ? `<span class="detail">secret cards unknown</span>` : "") + `</td>` +
        `<td>${mat ? `<a href="/scans/${mat.scan_id}">scan ${mat.scan_id}</a>${mat.corrected ? " (corrected)" : ""}` : `<span class="error">missing</span>`}</td>` +
        `<td>${r ? coins : "—"}${cats.map(([k, n]) => `<span class="detail">${esc(k.replace(":", " "))}: ${n}</span>`).join("")}</td>` +
        `<td>${r ? `${r.fossil_pairs} (${r.fossil_points} pts)` : "—"}</td>` +
        `<td>${r ? r.sand_dollar_points : "—"}</td>` +
        `<td class="total">${r ? r.total : "—"}</td><td class="rank">${rank[p] || "—"}</td>` +
        `<td><button type="button" class="scan-mat" data-player="${esc(p)}">${mat ? "rescan" : "scan"} mat</button></td></tr>`;
    }
    h += `</tbody></table>`;
    if (sc && sc.tie_break) h += `<p class="muted">tie-break: ${esc(sc.tie_break)}</p>`;
    if (t.problems.length) h += `<ul class="warnings">${t.problems.map(x => `<li>${esc(x)}</li>`).join("")}</ul>`;
    return h;
  }
  function renderSeashells(t, st) {
    const card = document.getElementById("seashells"), btn = document.getElementById("scan-now");
    const key = JSON.stringify(t);
    if (!t) { card.hidden = true; card.innerHTML = ""; btn.textContent = "Scan now"; root.dataset.seashells = ""; return; }
    btn.textContent = t.next ? `Scan ${t.next}'s mat` : "Scan now";
    if (card.dataset.key === key) return;
    card.dataset.key = key;
    card.innerHTML = seashellsHtml(t, (st.game && st.game.display) || {});
    card.hidden = false;
    root.dataset.seashells = t.complete ? "complete" : "missing:" + t.missing.join(",");
    card.querySelectorAll(".scan-mat").forEach(b => b.addEventListener("click", () =>
      post("/api/scan", `Scan of ${b.dataset.player}'s mat`, { player: b.dataset.player })));
  }

  function render(data) {
    const st = data.status, scan = data.scan;
    document.getElementById("status").innerHTML = statusHtml(st);
    document.getElementById("busy").hidden = !st.busy;
    document.getElementById("scan-now").disabled = st.busy || !st.camera.ok || !st.calibration.ok;
    renderSeashells(data.seashells, st);
    const key = scan ? `${scan.id}/${scan.revisions.length}` : "none";
    if (key === shownKey) return;
    shownKey = key;
    root.dataset.scanId = scan ? scan.id : "";
    root.dataset.revisions = scan ? scan.revisions.length : 0;
    if (!scan) return;
    const display = (st.game && st.game.display) || {};
    const img = document.getElementById("photo");
    const pid = scan.annotated_photo_id || scan.photo_id;
    if (pid) { img.src = `/photos/${pid}`; img.hidden = false; } else img.hidden = true;
    const when = scan.created_at.slice(11, 19);
    document.getElementById("score-title").textContent =
      `Scan ${scan.id} · ${when} UTC${scan.extra && scan.extra.mat_player ? ` · ${scan.extra.mat_player}'s mat` : ""}` +
      `${scan.corrected ? " · corrected" : ""}`;
    const score = document.getElementById("score");
    if (scan.error) {
      score.innerHTML = `<p class="error">Could not read the board: ${esc(scan.error.message)}</p>`;
      document.getElementById("confidence").innerHTML = "";
    } else {
      score.innerHTML = renderScore(scan.current_score, { swatches: display.swatches, names: display.names });
      const c = Math.round((scan.confidence || 0) * 100);
      document.getElementById("confidence").innerHTML =
        `<p class="muted">confidence ${c}%</p><div class="confbar ${c < 80 ? "low" : ""}"><div style="width:${c}%"></div></div>`;
    }
    document.getElementById("warnings").innerHTML = (scan.warnings || []).map(w => `<li>${esc(w)}</li>`).join("");
    document.getElementById("scan-links").innerHTML = `<a href="/scans/${scan.id}">details</a>` +
      (scan.status === "ok" ? ` · <a href="/scans/${scan.id}/correct">correct this scan</a>` : "");
  }

  async function refresh() {
    try { render(await api("GET", "/api/latest")); } catch (e) { say("Station unreachable: " + e.message, "bad"); }
  }

  function startPolling() {
    document.body.dataset.transport = "poll";
    if (!pollTimer) pollTimer = setInterval(refresh, pollMs);
  }

  function startSse() {
    const es = new EventSource("/events");
    es.addEventListener("hello", () => { document.body.dataset.transport = "sse"; });
    es.addEventListener("scan-started", () => { document.getElementById("busy").hidden = false; say(""); });
    es.addEventListener("scan-refused", ev => { say("Button: " + JSON.parse(ev.data).reason, "bad"); });
    for (const kind of ["scan", "revision", "game", "game-over", "calibration", "scan-failed"]) {
      es.addEventListener(kind, refresh);
    }
    es.onerror = () => {
      if (es.readyState === EventSource.CLOSED) { startPolling(); }
    };
  }

  async function post(url, what, body) {
    try { await api("POST", url, body); say(what + " started…", "good"); document.getElementById("busy").hidden = false; }
    catch (e) { say(explainError(e), "bad"); }
  }
  document.getElementById("scan-now").addEventListener("click", () => post("/api/scan", "Scan"));
  document.getElementById("game-over").addEventListener("click", () => {
    if (confirm("End the game and take the final score?")) post("/api/game-over", "Final scan");
  });

  refresh();
  const forcePoll = new URLSearchParams(location.search).get("transport") === "poll";
  if (window.EventSource && !forcePoll) startSse(); else startPolling();
  setInterval(refresh, 30000);  // safety net even with SSE
})();
