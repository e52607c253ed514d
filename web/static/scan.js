// A scan's page: its score table, drawn as the live page draws it (score.js).
"use strict";
(function () {
  const el = document.getElementById("score"), data = document.getElementById("score-data");
  if (!el || !data) return;
  const d = JSON.parse(data.textContent);
  if (d.score) el.innerHTML = renderScore(d.score, { swatches: d.display.swatches, names: d.display.names, game: d.game,
                                                  gameOver: !!d.game_over });
})();
