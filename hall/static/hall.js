// The room's pages (standings, where do I sit) and the organiser's round table update themselves:
// they ask the hall every few seconds with If-None-Match, and redraw only when the event changed.
"use strict";
const hall = (function () {
  function esc(s) {
    return String(s).replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }
  function poll(url, every, draw) {
    let etag = null;
    async function tick() {
      try {
        const r = await fetch(url, { headers: etag ? { "If-None-Match": etag } : {}, cache: "no-store" });
        if (r.status === 200) { etag = r.headers.get("ETag"); draw(await r.json()); }
      } catch (e) { /* the hall is restarting or the Wi-Fi dropped: try again next tick */ }
      setTimeout(tick, every);
    }
    tick();
  }
  function fmt(v) { return Number.isInteger(v) ? String(v) : (Math.round(v * 100) / 100).toString(); }

  function watchStandings() {
    const page = document.getElementById("standings-page");
    poll(page.dataset.url, Number(page.dataset.refreshMs) || 3000, doc => {
      document.getElementById("after").textContent = doc.rounds_played
        ? `after ${doc.rounds_played} round${doc.rounds_played > 1 ? "s" : ""}${doc.open_round ? ` · round ${doc.open_round} being played` : ""}`
        : (doc.open_round ? `round ${doc.open_round} being played` : "");
      const rows = doc.standings.map(s => `<tr data-player="${esc(s.player)}"${s.dropped ? ' class="dropped"' : ""}>
        <td>${s.rank}</td><td>${esc(s.name)}</td><td>${esc(s.club || "")}</td><td class="tp">${fmt(s.tournament_points)}</td>
        <td>${fmt(s.game_points)}</td><td>${s.wins}</td><td>${fmt(s.opponents)}</td><td>${s.played}</td></tr>`);
      document.querySelector("#standings tbody").innerHTML = rows.join("") ||
        '<tr><td colspan="8" class="muted">No players yet.</td></tr>';
      page.dataset.version = doc.version;
    });
  }

  function watchSeating() {
    const page = document.getElementById("seating-page");
    const who = document.getElementById("who");
    let last = null;
    function answer() {
      const out = document.getElementById("answer");
      const q = who.value.trim().toLowerCase();
      if (!last || !q) { out.textContent = ""; return; }
      const hits = Object.entries(last.where).filter(([name]) => name.toLowerCase().includes(q));
      const byes = last.byes.filter(b => b.name.toLowerCase().includes(q)).map(b => `${b.name}: bye this round`);
      out.textContent = hits.map(([name, t]) => `${name}: table ${t}`).concat(byes).join(" · ") || "No player of that name in this round.";
    }
    who.addEventListener("input", answer);
    poll(page.dataset.url, Number(page.dataset.refreshMs) || 3000, doc => {
      last = doc;
      document.getElementById("round-title").textContent = doc.round ? `round ${doc.round}` : "no round seated yet";
      document.getElementById("seating-tables").innerHTML = doc.tables.map(t => `<div class="seat-table" data-table="${t.table}">
        <h2>Table ${t.table}${t.played ? ' <small>played</small>' : ""}</h2><ul>${t.players.map(p => `<li>${esc(p.name)}</li>`).join("")}</ul></div>`).join("");
      answer();
      page.dataset.version = doc.version;
    });
  }

  function watchManage() {
    const part = document.getElementById("round-part");
    let version = part.dataset.version;
    poll(`/api/events/${part.dataset.event}/standings`, Number(part.dataset.refreshMs) || 3000, async doc => {
      if (String(doc.version) === String(version)) return;
      version = doc.version;
      const r = await fetch(part.dataset.partUrl, { cache: "no-store" });
      if (r.ok) { part.innerHTML = await r.text(); part.dataset.version = version; }
    });
  }
  return { watchStandings, watchSeating, watchManage };
})();
