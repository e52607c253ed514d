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

  function render(data) {
    const st = data.status, scan = data.scan;
    document.getElementById("status").innerHTML = statusHtml(st);
    document.getElementById("busy").hidden = !st.busy;
    document.getElementById("scan-now").disabled = st.busy || !st.camera.ok || !st.calibration.ok;
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
      `Scan ${scan.id} · ${when} UTC${scan.corrected ? " · corrected" : ""}`;
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
    for (const kind of ["scan", "revision", "game", "game-over", "calibration", "scan-failed"]) {
      es.addEventListener(kind, refresh);
    }
    es.onerror = () => {
      if (es.readyState === EventSource.CLOSED) { startPolling(); }
    };
  }

  async function post(url, what) {
    try { await api("POST", url); say(what + " started…", "good"); document.getElementById("busy").hidden = false; }
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
