// Render a score dict (contract shape) as a table: one row per player, total last, breakdown columns.
"use strict";
const SKIP = new Set(["player", "total"]);
const MANY_COLUMNS = 4;  // more breakdown columns than this: a narrow card stacks them (app.css)
// The breakdown in the order each game's rules count it (the rules pages' scoring sections:
// Strand unter castle by castle, castle points, unfit shells; Plażing's start, running points, then
// weather, resources, most areas, largest area, trash; Seashells' category coins, fossils, sand
// dollars, then the Sun shell's tie-break). The JSON's keys come sorted by name; any field not
// named here follows in that order.
const RULE_ORDER = {
  "strand-unter": ["castles", "castle_points", "unfit_shells"],
  "plazing": ["start", "closing_points", "field_points", "track", "weather_points", "resource_points",
              "areas", "most_areas_points", "largest_area", "largest_area_points", "trash_points"],
  "seashells": ["categories", "fossil_pairs", "fossil_points", "sand_dollar_points", "sun_matches", "secrets_known"],
};
const PART_ORDER = { castles: ["groove", "player", "value", "points"] };  // a castle: groove + value = points

function inOrder(keys, order) {
  const rank = k => { const i = (order || []).indexOf(k); return i < 0 ? Infinity : i; };
  return keys.map((k, i) => [k, i]).sort((a, b) => (rank(a[0]) - rank(b[0])) || (a[1] - b[1])).map(a => a[0]);
}

function fmtValue(v, field) {
  if (v === null || v === undefined) return "—";
  const entries = x => inOrder(Object.keys(x), PART_ORDER[field]).map(k => [k, x[k]]);
  if (Array.isArray(v)) {
    if (!v.length) return "–";
    return v.map(x => (x && typeof x === "object")
      ? entries(x).map(([k, y]) => `${k} ${typeof y === "object" ? JSON.stringify(y) : y}`).join(" ")
      : String(x)).join("; ");
  }
  if (typeof v === "object") return entries(v).map(([k, y]) => `${k} ${y}`).join(", ");
  return String(v);
}

// a figure the rules engine left null needs a fact the photo cannot show (the Game page asks for it)
const unknown = v => (v === null || v === undefined)
  ? ' title="not known yet: it needs a fact the photo cannot show (Game page, or asked at Game over)"' : "";

// Sand Castles is co-operative (../shared/contracts/sand-castles.md): no player rows but one row per
// castle (pieces standing of those it needs, what the wave threatens), the table's points together.
const LANES = ["top", "middle", "bottom"];
const OUTCOME = {
  won: "Won: every castle is complete.",
  "lost-castle": "A castle space is flooded: play on to finish the other castles.",
  playing: "Playing: not every castle is complete yet.",
};
const isCastles = (score, opts) => !!score && !Array.isArray(score.players) &&
  (opts.game === "sand-castles" || score.game === "sand-castles" || (score.lanes && "points" in score));

function renderCastles(score) {
  const lanes = score.lanes || {}, done = new Set(score.completed || []);
  const names = inOrder(Object.keys(lanes), LANES);
  const num = v => (typeof v === "number" ? v : null);
  let h = `<div class="score-wrap"><table class="score castles"><thead><tr><th>Castle</th><th>Pieces</th>` +
    `<th>Wave</th><th>Points</th></tr></thead><tbody>`;
  for (const name of names) {
    const l = lanes[name] || {}, needed = num(l.needed), missing = num(l.missing);
    const standing = needed !== null && missing !== null ? needed - missing : null;
    const points = standing === null ? null : standing + (done.has(name) ? 1 : 0);
    const state = done.has(name) ? ' <span class="star" title="complete: 1 bonus point">★ complete</span>'
      : l.flooded ? ' <span class="error">flooded</span>' : "";
    h += `<tr class="${done.has(name) ? "winner" : ""}" data-lane="${esc(name)}"><td>${esc(name)}${state}</td>` +
      `<td data-label="Pieces"${unknown(standing)}>${standing === null ? "—" : `${standing} of ${needed}`}</td>` +
      `<td data-label="Wave" class="danger">${esc(l.danger || "—")}</td>` +
      `<td data-label="Points"${unknown(points)}>${esc(fmtValue(points))}</td></tr>`;
  }
  const max = num(score.max_points);
  const needAll = names.reduce((a, n) => (a === null || num((lanes[n] || {}).needed) === null ? null : a + lanes[n].needed), 0);
  h += `<tr class="together"><td>Together <small>${done.size} of ${names.length} complete</small></td>` +
    `<td data-label="Pieces"${unknown(score.pieces)}>${esc(fmtValue(score.pieces))}${needAll ? ` of ${needAll}` : ""}</td>` +
    `<td data-label="Walls left">${score.walls_left === undefined ? "" : `walls left: ${esc(fmtValue(score.walls_left))}`}</td>` +
    `<td class="total" data-label="Total"${unknown(score.points)}>${esc(fmtValue(score.points))}` +
    `${max === null ? "" : ` <small>of ${max}</small>`}</td></tr></tbody></table></div>`;
  if (OUTCOME[score.outcome]) h += `<p class="outcome" data-outcome="${esc(score.outcome)}">${OUTCOME[score.outcome]}</p>`;
  return h;
}

// What each game's unknown total waits for, for one player and for several (../shared/rules/; the
// Game over questions of beachscore/station/endgame.py).
const MISSING_FACTS = {
  "strand-unter": ["its unfit shells: the shells left in the bucket that find no space on the face-up (unbuilt) castle cards",
                   "their unfit shells: the shells left in each bucket that find no space on the face-up (unbuilt) castle cards"],
  "plazing": ["the weather die, or who closed an area", "the weather die, or who closed an area"],
};

// What the Game page takes instead, when it differs from what Game over asks.
const SETUP_FACTS = { "strand-unter": "the buckets and face-up castle cards" };

const isKnown = v => v !== null && v !== undefined;
const together = words => words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;

// A winner is marked only when the score that decides it is complete: every player's total known
// and the ranking made on those totals (Strand unter without buckets ranks by castle points), and
// more than one player in the score (one Seashells mat is no game's result).
function winnerKnown(score) {
  return Array.isArray(score.winners) && score.winners.length > 0 && score.players.length > 1 &&
    score.players.every(p => isKnown(p.total)) && (!isKnown(score.ranked_by) || score.ranked_by === "total");
}

// Whose totals are not known and what they wait for, in players' words; "No winner yet" when the
// score would otherwise name one.
function unknownHint(score, game, over) {
  const open = score.players.filter(p => !isKnown(p.total)).map(p => `${p.player}'s`);
  const one = open.length === 1;
  const facts = (MISSING_FACTS[game] || ["a fact the photo cannot show", "facts the photo cannot show"])[one ? 0 : 1];
  if (over) {  // a finished game: Game over is behind it, nothing more is asked
    return `<p class="unknown-hint" id="unknown-hint">${(score.winners || []).length ? "No winner: " : ""}` +
      `${esc(together(open))} total${one ? " is" : "s are"} not known (—): ${one ? "it needs" : "they need"} ` +
      `${esc(facts)}, and the game ended without ${one ? "it" : "them"}.</p>`;
  }
  const lead = (score.winners || []).length ? "No winner yet: " : "";
  return `<p class="unknown-hint" id="unknown-hint">${lead}${esc(together(open))} total${one ? " is" : "s are"} ` +
    `not known yet (—): ${one ? "it needs" : "they need"} ${esc(facts)}. ` +
    `<span class="asked-at-end">Asked at <a href="/#game-over">Game over</a>; or give ${esc(SETUP_FACTS[game] || "them")} when setting up on the <a href="/game">Game page</a>.</span></p>`;
}

// The players in the Game page's order (the order of its swatches; players it does not name last,
// as the score lists them); the score's own order stays in its ``ranking``.
function inGameOrder(players, swatches) {
  const order = Object.keys(swatches || {});
  const at = p => (order.includes(p.player) ? order.indexOf(p.player) : order.length);
  return [...players].sort((a, b) => at(a) - at(b));
}

function renderScore(score, opts) {
  opts = opts || {};
  if (isCastles(score, opts)) return renderCastles(score);
  if (!score || !Array.isArray(score.players) || !score.players.length) {
    return `<pre>${esc(JSON.stringify(score, null, 1))}</pre>`;
  }
  score = Object.assign({}, score, { players: inGameOrder(score.players, opts.swatches) });
  const winners = new Set(winnerKnown(score) ? score.winners : []);
  const swatches = opts.swatches || {}, names = opts.names || {};
  const cols = [];
  for (const p of score.players) for (const k of Object.keys(p)) if (!SKIP.has(k) && !cols.includes(k)) cols.push(k);
  cols.splice(0, cols.length, ...inOrder(cols, RULE_ORDER[opts.game || score.game]));
  const simple = cols.filter(k => score.players.every(p => p[k] === null || p[k] === undefined || typeof p[k] !== "object"));
  const detail = cols.filter(k => !simple.includes(k));
  // many columns (Plażing has 11): on a narrow card each player becomes a block, Total beside the name
  const label = k => esc(k.replace(/_/g, " "));
  let h = `<div class="score-wrap"><table class="score${simple.length > MANY_COLUMNS ? " many" : ""}"><thead><tr><th>Player</th>` +
    `${simple.map(k => `<th>${label(k)}</th>`).join("")}<th>Total</th></tr></thead><tbody>`;
  for (const p of score.players) {
    const sw = swatches[p.player] || p.player;
    const name = names[p.player] ? ` <small>${esc(names[p.player])}</small>` : "";
    const det = detail.map(k => `<span class="detail">${esc(k.replace(/_/g, " "))}: ${esc(fmtValue(p[k], k))}</span>`).join("");
    h += `<tr class="${winners.has(p.player) ? "winner" : ""}" data-player="${esc(p.player)}">` +
      `<td><span class="swatch" style="background:${esc(sw)}"></span>${esc(p.player)}${name}${winners.has(p.player) ? ' <span class="star" title="winner">★</span>' : ""}${det}</td>` +
      simple.map(k => `<td data-label="${label(k)}"${unknown(p[k])}>${esc(fmtValue(p[k]))}</td>`).join("") +
      `<td class="total" data-label="Total"${unknown(p.total)}>${esc(fmtValue(p.total))}</td></tr>`;
  }
  h += "</tbody></table></div>";
  if (score.players.some(p => !isKnown(p.total))) h += unknownHint(score, opts.game || score.game, opts.gameOver);
  if (score.tie_break && winners.size) h += `<p class="muted">tie-break: ${esc(score.tie_break)}</p>`;
  return h;
}

function totals(score) {
  if (isCastles(score, {})) return `${fmtValue(score.points).replace("—", "?")} of ${fmtValue(score.max_points)} points together`;
  if (!score || !Array.isArray(score.players)) return "";
  return score.players.map(p => `${p.player} ${p.total === null || p.total === undefined ? "?" : p.total}`).join(", ");
}
