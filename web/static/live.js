// Live page: show the latest scan; refresh when the station says a scan landed (SSE), else poll.
"use strict";
(function () {
  const root = document.getElementById("live");
  const pollMs = Number(root.dataset.pollMs) || 3000;
  let shownKey = null, pollTimer = null;
  // a scan asked from this page: its outcome replaces "… started" (SSE events, or the next poll)
  let pending = null;
  // the id of the last board event: an answer of /api/latest read before it says an older state
  let boardEventId = 0;
  // the shown game is over: the board is not watched for it (a new game first)
  let gameOver = false;

  function statusHtml(st) {
    const out = [];
    if (st.store && !st.store.ok) {
      const what = { "disk-full": "Disk full", "read-only": "Viewing only", "data-folder-missing": "Data folder gone" };
      out.push(`<b>${what[st.store.code] || "Storage problem"}:</b> ${esc(st.store.problem || "")}`);
    }
    if (!st.camera.ok) out.push(`Camera missing: ${esc(st.camera.problem || "")}`);
    if (st.button && st.button.problem && !st.button.fitted) out.push(`Button not working: ${esc(st.button.problem)}`);
    if (st.light && st.light.problem) out.push(`Status light not working: ${esc(st.light.problem)}`);
    if (!st.calibration.ok) out.push(`${esc(st.calibration.problem || "not calibrated")}: <a href="/calibrate">open the calibration page</a>.`);
    if (!st.game) out.push(`No game set up yet: <a href="/game">set up a game</a>.`);
    else if (st.game.ended_at) out.push(`Game ${st.game.id} is over — its final score is below. ` +
      `To scan again, <a href="/game">set up a new game</a>.`);
    return out.map(t => `<p>${t}</p>`).join("");
  }

  // The game being played, by its own name ("Strand unter"), as the page's heading.
  function showGameTitle(game) {
    const el = document.getElementById("game-title");
    el.hidden = !game;
    el.innerHTML = game ? `${esc(gameName(game.game))} <small class="muted">game ${esc(game.id)}${game.ended_at ? ", over" : ""}</small>` : "";
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
    h += `<div class="score-wrap"><table class="score seashells many"><thead><tr><th>Player</th><th>Mat</th><th>Category coins</th><th>Fossil pairs</th>` +
      `<th>Sand dollars</th><th>Total</th><th>Rank</th><th></th></tr></thead><tbody>`;
    for (const p of t.players) {
      const mat = t.mats[p], r = rows[p];
      const cats = r ? Object.entries(r.categories) : [];
      const coins = cats.reduce((a, [, n]) => a + n, 0);
      h += `<tr data-player="${esc(p)}" class="${mat ? "read" : "missing"} ${winners.has(p) ? "winner" : ""}">` +
        `<td>${who(p)}${winners.has(p) && t.complete ? ' <span class="star" title="winner">★</span>' : ""}` +
        (r && !r.secrets_known ? `<span class="detail">secret cards unknown</span>` : "") + `</td>` +
        `<td data-label="Mat">${mat ? `<a href="/scans/${mat.scan_id}">scan ${mat.scan_id}</a>${mat.corrected ? " (corrected)" : ""}` : `<span class="error">missing</span>`}</td>` +
        `<td data-label="Category coins">${r ? coins : "—"}${cats.map(([k, n]) => `<span class="detail">${esc(k.replace(":", " "))}: ${n}</span>`).join("")}</td>` +
        `<td data-label="Fossil pairs">${r ? `${r.fossil_pairs} (${r.fossil_points} pts)` : "—"}</td>` +
        `<td data-label="Sand dollars">${r ? r.sand_dollar_points : "—"}</td>` +
        `<td class="total" data-label="Total">${r ? r.total : "—"}</td><td class="rank" data-label="Rank">${rank[p] || "—"}</td>` +
        `<td class="mat-action"><button type="button" class="scan-mat" data-player="${esc(p)}">${mat ? "rescan" : "scan"} mat</button></td></tr>`;
    }
    h += `</tbody></table></div>`;
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

  // what the board watcher sees (board events, and the status on every refresh)
  const boardWords = {
    watching: "Watching the board.", changing: "The board is changing: it is scanned once it is still.",
    hand: "Hand over the board: waiting until it has gone.", scanning: "Scanning…", off: "Not watching the board.",
  };
  function showBoard(a) {
    if (!a) return;
    const el = document.getElementById("board-state"), box = document.getElementById("auto-scan");
    el.dataset.state = gameOver ? "over" : a.state;
    el.textContent = gameOver ? "The game is over: the board is not scanned by itself until a new game is set up."
      : (boardWords[a.state] || a.state) + (a.problem ? ` (${a.problem})` : "");
    if (document.activeElement !== box) box.checked = !!a.enabled;
  }

  // Why the buttons are greyed out: no PIN (or a locked page), a finished game, no game to end.
  function showActions(st, over) {
    const locked = document.body.dataset.unlocked !== "yes";
    const lockHint = document.body.dataset.pinSet === "yes" ? "Unlock with the PIN (top right) to scan."
      : "Choose the station PIN first (top right): nothing can be scanned until then.";
    const scan = document.getElementById("scan-now"), end = document.getElementById("game-over");
    const box = document.getElementById("auto-scan");
    scan.disabled = locked || over || st.busy || !st.camera.ok || !st.calibration.ok;
    end.disabled = locked || over || !st.game;
    box.disabled = locked || over;
    const hint = locked ? lockHint : over ? "" : !st.game ? "Game over ends a game: set up a game first." : "";
    scan.title = locked ? lockHint : over ? "The game is over: set up a new game to scan again." : "";
    end.title = locked ? lockHint : over ? "This game is over already." : !st.game ? "No game to end yet." : "";
    box.parentElement.title = locked ? lockHint : over ? "The game is over: nothing is scanned by itself." : "";
    const el = document.getElementById("actions-hint");
    el.textContent = hint; el.hidden = !hint;
  }

  function render(data) {
    const st = data.status, scan = data.scan;
    const over = !!(st.game && st.game.ended_at);  // a finished game scans no more: a new game first
    gameOver = over;
    if (!(st.last_event_id < boardEventId)) showBoard(st.auto_scan);
    showGameTitle(st.game);
    document.getElementById("status").innerHTML = statusHtml(st);
    document.getElementById("busy").hidden = !st.busy;
    showActions(st, over);
    renderSeashells(data.seashells, st);
    document.querySelectorAll("#seashells .scan-mat").forEach(b => { b.disabled = over; });
    if (window.renderFollow) window.renderFollow(data.follow, st);
    const key = scan ? `${scan.id}/${scan.revisions.length}${over ? "/final" : ""}` : "none";
    if (pending && pending.accepted && !st.busy) settle(pending.before !== key ? scan : null, st, data);
    const img = document.getElementById("photo"), pid = scan ? scan.annotated_photo_id || scan.photo_id : null;
    if (pid && img.dataset.photoId !== String(pid)) {  // the annotated picture comes a moment after the score
      img.dataset.photoId = pid; img.src = `/photos/${pid}`; img.hidden = false;
    } else if (!pid) { img.hidden = true; img.removeAttribute("src"); img.dataset.photoId = ""; }
    const noPhoto = document.getElementById("no-photo");
    noPhoto.hidden = !!pid;
    if (!pid) noPhoto.textContent = scan ? `Scan ${scan.id} kept no photo.` : "No photo yet: press the button or “Scan now”.";
    if (key === shownKey) return;
    shownKey = key;
    root.dataset.scanId = scan ? scan.id : "";
    root.dataset.revisions = scan ? scan.revisions.length : 0;
    if (!scan) return;
    const display = (st.game && st.game.display) || {};
    const when = localTime(scan.created_at);
    const final = over && st.game.final_scan_id === scan.id;
    document.getElementById("score-title").textContent =
      `${final ? "Final score · " : ""}Scan ${scan.id} · ${when}${scan.extra && scan.extra.mat_player ? ` · ${scan.extra.mat_player}'s mat` : ""}` +
      `${scan.corrected ? " · corrected" : ""}`;
    const score = document.getElementById("score");
    if (scan.error) {
      score.innerHTML = `<p class="error">Could not read the board: ${esc(scan.error.message)}</p>`;
      document.getElementById("confidence").innerHTML = "";
    } else {
      score.innerHTML = renderScore(scan.current_score, { swatches: display.swatches, names: display.names, game: scan.game,
                                                          gameOver: !!(over && scan.game_id === st.game.id) });
      const c = scan.confidence_percent;  // the server's rule: cut to a whole percent, never rounded up
      document.getElementById("confidence").innerHTML =
        `<p class="muted">confidence ${c}%</p><div class="confbar ${c < 80 ? "low" : ""}"><div style="width:${c}%"></div></div>`;
    }
    document.getElementById("warnings").innerHTML = (scan.warnings || []).map(w => `<li>${esc(w)}</li>`).join("") +
      (scan.settled_warnings || []).map(w => `<li class="settled"><s>${esc(w)}</s> settled by the correction</li>`).join("");
    document.getElementById("scan-links").innerHTML = `<a href="/scans/${scan.id}">details</a>` +
      (scan.status === "ok" ? ` · <a href="/scans/${scan.id}/correct">correct this scan</a>` : "");
  }

  // The outcome of the scan this page started: read, failed (and why), game over or still open.
  function settle(scan, st, data) {
    const final = pending.final;
    pending = null;
    if (!scan) say(`The scan failed: ${(st.store && st.store.problem) || "nothing was saved; see the station's log"}`, "bad");
    else if (scan.error) say(`Scan ${scan.id} failed: ${scan.error.message}`, "bad");
    else say(`Scan ${scan.id} read.`, "good");
    const asked = !!(data.follow && data.follow.ending && data.follow.ending.answers === null);
    if (final && asked) say("Game over: answer the questions below to get every total.", "good");
    else if (final && !(st.game && st.game.ended_at)) say("The final scan did not read: the game is still open. " +
      "Fix it and press Game over again.", "bad");
    else if (final) say("Game over: the final score is below.", "good");
  }

  // Answers may come back out of order (a busy station): one older than the newest drawn is dropped,
  // or a stale state would stay on the page until the next event.
  let asked = 0, drawn = 0;
  async function refresh() {
    const mine = ++asked;
    try {
      const data = await api("GET", "/api/latest");
      if (mine < drawn) return;
      drawn = mine;
      render(data);
    } catch (e) { if (mine >= drawn) say("Station unreachable: " + e.message, "bad"); }
  }

  function startPolling() {
    document.body.dataset.transport = "poll";
    boardEventId = 0;  // no board events any more: every answer says the state
    if (!pollTimer) pollTimer = setInterval(refresh, pollMs);
  }

  function startSse() {
    const es = new EventSource("/events");
    es.addEventListener("hello", () => { document.body.dataset.transport = "sse"; boardEventId = 0; });
    es.addEventListener("scan-started", ev => {
      document.getElementById("busy").hidden = false;
      const d = JSON.parse(ev.data);
      if (!pending && d.source === "auto") say("The board is still: scanning…", "good");
      else if (!pending) say(d.final ? "Final scan started (button)…" : "Scan started (button)…", "good");
    });
    es.addEventListener("board", ev => {
      const d = JSON.parse(ev.data), box = document.getElementById("auto-scan");
      boardEventId = Number(ev.lastEventId) || 0;
      showBoard({ ...d, enabled: box.checked || d.state !== "off" });
    });
    es.addEventListener("scan-refused", ev => { say("Button: " + JSON.parse(ev.data).reason, "bad"); });
    es.addEventListener("scan", ev => {
      const d = JSON.parse(ev.data), final = pending && pending.final;
      pending = null;
      if (d.status === "error") say(`${d.scan_id ? `Scan ${d.scan_id}` : "The scan"} failed: ${d.message || d.error}`, "bad");
      else if (!final) say(`Scan ${d.scan_id} read.`, "good");
      else say("Final scan read…", "good");
      refresh();
    });
    es.addEventListener("game-over", () => { pending = null; say("Game over: the final score is below.", "good"); refresh(); });
    es.addEventListener("game-questions", () => { pending = null; say("Game over: answer the questions below to get every total.", "good"); refresh(); });
    es.addEventListener("game-over-failed", ev => { pending = null; say(JSON.parse(ev.data).message, "bad"); refresh(); });
    for (const kind of ["revision", "game", "calibration", "scan-annotated", "scan-finished"]) es.addEventListener(kind, refresh);
    es.onerror = () => {
      if (es.readyState === EventSource.CLOSED) { startPolling(); }
    };
  }

  async function post(url, what, body) {
    const before = shownKey;
    try {
      pending = { before, final: url === "/api/game-over" };
      const out = await api("POST", url, body);
      if (out && out.ended) { pending = null; say("Game over: the final score is below.", "good"); refresh(); return; }
      if (pending) { pending.accepted = true; say(what + " started…", "good"); }
      document.getElementById("busy").hidden = false;
      if (document.body.dataset.transport !== "sse") setTimeout(refresh, 300);
    } catch (e) { pending = null; say(explainError(e), "bad"); }
  }
  document.getElementById("scan-now").addEventListener("click", () => post("/api/scan", "Scan"));
  document.getElementById("auto-scan").addEventListener("change", async ev => {
    try { showBoard((await api("POST", "/api/auto-scan", { on: ev.target.checked })).auto_scan); }
    catch (e) { say(explainError(e), "bad"); ev.target.checked = !ev.target.checked; }
  });
  document.getElementById("game-over").addEventListener("click", () => {
    if (confirm("End the game and take the final score?")) post("/api/game-over", "Final scan");
  });

  refresh();
  const forcePoll = new URLSearchParams(location.search).get("transport") === "poll";
  if (window.EventSource && !forcePoll) startSse(); else startPolling();
  setInterval(refresh, 30000);  // safety net even with SSE
})();
