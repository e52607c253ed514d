// Calibration wizard: shot → four corners → labelled pieces → save (server runs calibrate) → learned classes.
"use strict";
(function () {
  const root = document.getElementById("wizard");
  const LABELS = JSON.parse(document.getElementById("labels-data").textContent);
  const CORNERS = ["top-left", "top-right", "bottom-right", "bottom-left"];
  const img = document.getElementById("shot"), svg = document.getElementById("marks");
  const labelSel = document.getElementById("label"), help = document.getElementById("step-help");
  const saveBtn = document.getElementById("save");
  let photoId = null, emptyPhotoId = null, corners = [], samples = [], clicks = [], fileProfile = null;
  let game = root.dataset.defaultGame, doubted = [];  // doubted: the light check's sample numbers (1-based)

  const NEEDS = JSON.parse(document.getElementById("shot-needs-data").textContent);
  const WORDS = JSON.parse(document.getElementById("label-words-data").textContent);  // label → as players say it
  const said = l => (WORDS[game] || {})[l] || l;
  function fillLabels() {
    if (NEEDS[game]) document.getElementById("shot-needs-game").textContent = NEEDS[game];
    const keep = labelSel.value;
    labelSel.innerHTML = (LABELS[game] || []).map(l => `<option value="${esc(l)}">${esc(said(l))}</option>`).join("");
    if ([...labelSel.options].some(o => o.value === keep)) labelSel.value = keep;
  }
  fillLabels();

  function draw() {
    if (!img.naturalWidth) return;
    const W = img.naturalWidth, Hh = img.naturalHeight, r = Math.max(W, Hh) / 120;
    svg.setAttribute("viewBox", `0 0 ${W} ${Hh}`);
    svg.setAttribute("preserveAspectRatio", "none");
    let s = "";
    if (corners.length > 1) s += `<polyline points="${corners.map(p => p.join(",")).join(" ")}${corners.length === 4 ? " " + corners[0].join(",") : ""}" fill="none" stroke="yellow" stroke-width="${r / 3}"/>`;
    corners.forEach((p, i) => { s += `<circle cx="${p[0]}" cy="${p[1]}" r="${r}" fill="none" stroke="yellow" stroke-width="${r / 3}"/><text x="${p[0] + r}" y="${p[1] - r}" fill="yellow" font-size="${r * 2.5}">${i + 1}</text>`; });
    // a sample is marked by its number in the list below (as messages name it): labels would crowd each other
    samples.forEach((sm, i) => { s += `<g class="sample"><title>${i + 1}: ${esc(said(sm.label))}</title><circle cx="${sm.px[0]}" cy="${sm.px[1]}" r="${r * .8}" fill="none" stroke="#0f0" stroke-width="${r / 3}"/><text x="${sm.px[0] + r}" y="${sm.px[1]}" fill="#fff" stroke="#000" stroke-width="${r / 8}" font-size="${r * 1.8}">${i + 1}</text></g>`; });
    doubted.forEach(n => { const sm = samples[n - 1]; if (sm) s += `<circle class="doubted" cx="${sm.px[0]}" cy="${sm.px[1]}" r="${r * 1.8}" fill="none" stroke="orange" stroke-width="${r / 2}"/>`; });
    svg.innerHTML = s;
    document.getElementById("samples").innerHTML = samples.map((sm, i) =>
      `<li${doubted.includes(i + 1) ? ' class="doubted"' : ""}>${esc(said(sm.label))} @ ${sm.px.map(v => v.toFixed(0)).join(", ")}</li>`).join("");
    help.textContent = !photoId ? "Take or upload a shot first."
      : corners.length < 4 ? `Click board corner ${corners.length + 1} of 4: ${CORNERS[corners.length]}.`
      : `Choose a label, then click the centre of a piece with that label (${samples.length} so far).`;
    root.dataset.corners = corners.length; root.dataset.samples = samples.length;
    saveBtn.disabled = !(photoId && corners.length === 4 && samples.length);
  }

  function showShot(id) {
    photoId = id; corners = []; samples = []; clicks = []; doubted = [];
    if (scroller.classList.contains("zoomed")) zoomBtn.click();  // a new shot starts unzoomed
    img.onload = () => { img.hidden = false; draw(); root.dataset.photoId = id; };
    img.src = `/photos/${id}`;
    document.getElementById("result").hidden = true;
  }

  img.addEventListener("click", ev => {
    const r = img.getBoundingClientRect();
    const p = [(ev.clientX - r.left) * img.naturalWidth / r.width, (ev.clientY - r.top) * img.naturalHeight / r.height];
    if (corners.length < 4) { corners.push(p); clicks.push("corner"); }
    else { samples.push({ label: labelSel.value, px: p }); clicks.push("sample"); }
    draw();
  });
  // zoom: the shot three times larger in a scrolling frame, so that a corner or a small piece can be hit on a phone
  const scroller = document.getElementById("shot-scroll"), zoomBtn = document.getElementById("zoom");
  zoomBtn.onclick = () => {
    const on = !scroller.classList.contains("zoomed"), shown = img.getBoundingClientRect().width;
    if (on && !(img.naturalWidth && shown)) return;  // no shot shown yet: nothing to zoom
    scroller.classList.toggle("zoomed", on);
    img.style.width = on ? `${Math.round(Math.min(3 * shown, 2 * img.naturalWidth))}px` : "";
    zoomBtn.textContent = on ? "Zoom out" : "Zoom in";
    zoomBtn.setAttribute("aria-pressed", String(on));
    if (on) { scroller.scrollLeft = (scroller.scrollWidth - scroller.clientWidth) / 2; scroller.scrollTop = (scroller.scrollHeight - scroller.clientHeight) / 2; }
  };
  document.getElementById("undo").onclick = () => { const k = clicks.pop(); doubted = []; if (k === "corner") corners.pop(); if (k === "sample") samples.pop(); draw(); };
  document.getElementById("reset").onclick = () => { corners = []; samples = []; clicks = []; doubted = []; draw(); };

  document.getElementById("take-shot").onclick = async () => {
    say("Taking the shot…");
    try { showShot((await api("POST", "/api/calibration/shot")).photo_id); say(""); }
    catch (e) { say(explainError(e), "bad"); }
  };
  document.getElementById("upload").onchange = async ev => {
    const f = ev.target.files[0]; if (!f) return;
    const fd = new FormData(); fd.append("photo", f);
    try { showShot((await api("POST", "/api/calibration/upload", fd)).photo_id); say(""); }
    catch (e) { say(explainError(e), "bad"); }
  };
  // optional empty-board shot (passed to calibration as empty_image)
  function showEmpty(id) {
    emptyPhotoId = id;
    const im = document.getElementById("empty-shot");
    im.hidden = id === null; if (id !== null) im.src = `/photos/${id}`;
    document.getElementById("empty-state").textContent = id === null ? "none" : `empty-board shot ${id} will be used`;
    document.getElementById("drop-empty").hidden = id === null;
    root.dataset.emptyPhotoId = id === null ? "" : id;
  }
  document.getElementById("take-empty").onclick = async () => {
    say("Taking the empty-board shot…");
    try { showEmpty((await api("POST", "/api/calibration/shot")).photo_id); say(""); }
    catch (e) { say(explainError(e), "bad"); }
  };
  document.getElementById("upload-empty").onchange = async ev => {
    const f = ev.target.files[0]; if (!f) return;
    const fd = new FormData(); fd.append("photo", f);
    try { showEmpty((await api("POST", "/api/calibration/upload", fd)).photo_id); say(""); }
    catch (e) { say(explainError(e), "bad"); }
  };
  document.getElementById("drop-empty").onclick = () => showEmpty(null);

  const source = document.getElementById("profile-source"), pfile = document.getElementById("profile-file");
  function sourceChanged() {
    pfile.hidden = source.value !== "file";
    if (source.value.startsWith("default:")) {
      game = source.value.slice(8); fillLabels();
      root.dataset.game = game;
      say(`Board profile: the boxed ${gameName(game)} board.`);
    }
  }
  source.onchange = sourceChanged; sourceChanged();
  pfile.onchange = async ev => {
    const f = ev.target.files[0]; if (!f) return;
    try { fileProfile = JSON.parse(await f.text()); game = fileProfile.game || game; fillLabels(); say(`Board profile for ${gameName(game)}.`); }
    catch (e) { fileProfile = null; say("profile.json: " + e.message, "bad"); }
  };

  saveBtn.onclick = async () => {
    const body = { photo_id: photoId, corners_px: corners, samples };
    if (source.value === "file") {
      if (!fileProfile) { say("Choose the board's profile.json first.", "bad"); return; }
      body.profile = fileProfile;
    } else if (source.value.startsWith("default:")) body.default_profile = source.value.slice(8);
    if (emptyPhotoId !== null) body.empty_photo_id = emptyPhotoId;
    saveBtn.disabled = true; say("Learning… (a few seconds)");
    try {
      const out = await api("POST", "/api/calibration", body);
      const listed = out.classes_in_words || out.classes.map(c => ({ words: c, classes: [c], labelled: true, detail: "" }));
      const chip = e => `<li class="chip" data-classes="${esc(e.classes.join(" "))}">${esc(e.words)}` +
        `${e.detail ? ` <small class="muted">${esc(e.detail)}</small>` : ""}</li>`;
      document.getElementById("classes").innerHTML = listed.filter(e => e.labelled).map(chip).join("");
      const found = listed.filter(e => !e.labelled);
      document.getElementById("found").innerHTML = found.map(chip).join("");
      document.getElementById("found-part").hidden = !found.length;
      const prev = document.getElementById("preview");
      prev.src = `/photos/${out.preview_photo_id}`;
      document.getElementById("preview-full").href = prev.src;  // a phone shows it too small to read
      document.getElementById("result").hidden = false;
      root.dataset.done = "yes";
      const pairs = out.confusable || [];
      doubted = pairs.filter(p => p.sample).map(p => p.sample);
      document.getElementById("confusable").innerHTML = pairs.map(p => `<li>${esc(p.advice)}</li>`).join("");
      document.getElementById("light").hidden = pairs.length === 0;
      if (pairs.length) say(`Calibrated ${gameName(out.game)}, but in this light some pieces look alike: see below. Scans now use this calibration.`, "bad");
      else say(`Calibrated ${gameName(out.game)}: ${listed.length} kinds of things learned. Scans now use this calibration.`, "good");
    } catch (e) { doubted = e.samples || []; say(explainError(e), "bad"); }  // a refused sample ringed like a doubted one
    finally { draw(); }
  };
  draw();
})();
