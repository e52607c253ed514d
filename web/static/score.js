// Render a score dict (contract shape) as a table: one row per player, total last, breakdown columns.
"use strict";
const SKIP = new Set(["player", "total"]);
const MANY_COLUMNS = 4;  // more breakdown columns than this: a narrow card stacks them (app.css)

function fmtValue(v) {
  if (v === null || v === undefined) return "—";
  if (Array.isArray(v)) {
    if (!v.length) return "–";
    return v.map(x => (x && typeof x === "object")
      ? Object.entries(x).map(([k, y]) => `${k} ${typeof y === "object" ? JSON.stringify(y) : y}`).join(" ")
      : String(x)).join("; ");
  }
  if (typeof v === "object") return Object.entries(v).map(([k, y]) => `${k} ${y}`).join(", ");
  return String(v);
}

function renderScore(score, opts) {
  opts = opts || {};
  if (!score || !Array.isArray(score.players) || !score.players.length) {
    return `<pre>${esc(JSON.stringify(score, null, 1))}</pre>`;
  }
  const winners = new Set(score.winners || []);
  const swatches = opts.swatches || {}, names = opts.names || {};
  const cols = [];
  for (const p of score.players) for (const k of Object.keys(p)) if (!SKIP.has(k) && !cols.includes(k)) cols.push(k);
  const simple = cols.filter(k => score.players.every(p => p[k] === null || p[k] === undefined || typeof p[k] !== "object"));
  const detail = cols.filter(k => !simple.includes(k));
  // many columns (Plażing has 11): on a narrow card each player becomes a block, Total beside the name
  const label = k => esc(k.replace(/_/g, " "));
  let h = `<div class="score-wrap"><table class="score${simple.length > MANY_COLUMNS ? " many" : ""}"><thead><tr><th>Player</th>` +
    `${simple.map(k => `<th>${label(k)}</th>`).join("")}<th>Total</th></tr></thead><tbody>`;
  for (const p of score.players) {
    const sw = swatches[p.player] || p.player;
    const name = names[p.player] ? ` <small>${esc(names[p.player])}</small>` : "";
    const det = detail.map(k => `<span class="detail">${esc(k.replace(/_/g, " "))}: ${esc(fmtValue(p[k]))}</span>`).join("");
    h += `<tr class="${winners.has(p.player) ? "winner" : ""}" data-player="${esc(p.player)}">` +
      `<td><span class="swatch" style="background:${esc(sw)}"></span>${esc(p.player)}${name}${winners.has(p.player) ? ' <span class="star" title="winner">★</span>' : ""}${det}</td>` +
      simple.map(k => `<td data-label="${label(k)}">${esc(fmtValue(p[k]))}</td>`).join("") +
      `<td class="total" data-label="Total">${esc(fmtValue(p.total))}</td></tr>`;
  }
  h += "</tbody></table></div>";
  if (score.tie_break) h += `<p class="muted">tie-break: ${esc(score.tie_break)}</p>`;
  return h;
}

function totals(score) {
  if (!score || !Array.isArray(score.players)) return "";
  return score.players.map(p => `${p.player} ${p.total === null || p.total === undefined ? "?" : p.total}`).join(", ");
}
