// Shared helpers: JSON requests carrying the CSRF token, HTML escaping.
"use strict";
const CSRF = document.querySelector('meta[name="csrf-token"]').content;

async function api(method, url, body) {
  const opts = { method, headers: { "X-CSRF-Token": CSRF, "Accept": "application/json" }, credentials: "same-origin" };
  if (body instanceof FormData) opts.body = body;
  else if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
  const res = await fetch(url, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const err = new Error((data && data.error && data.error.message) || res.statusText);
    err.code = data && data.error && data.error.code; err.status = res.status;
    err.samples = (data && data.error && data.error.samples) || [];  // refused calibration samples (1-based)
    throw err;
  }
  return data;
}

function esc(v) {
  return String(v).replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

function say(text, kind) {
  const m = document.getElementById("message");
  if (!m) return;
  m.textContent = text || "";
  m.className = "message " + (kind || "");
}

// A game's own name ("Strand unter") for its id ("strand-unter"); ids stay in URLs, JSON and form values.
const GAME_NAMES = JSON.parse(document.body.dataset.gameNames || "{}");
const gameName = id => GAME_NAMES[id] || String(id || "");

function explainError(err) {
  if (err.code === "pin-required" || err.code === "pin-not-set") return err.message + " → PIN page (top right).";
  return err.message;
}

// An ISO 8601 time of the station (UTC) in this device's local time on a 24-hour clock, the date only
// when not today: "14:05:31" today, "2026-01-03 14:05:31" another day (the server's local_time says
// it the same way; every page shows this one format).
function localTime(iso, seconds) {
  const t = new Date(iso);
  if (isNaN(t)) return String(iso);
  const two = n => String(n).padStart(2, "0");
  const clock = `${two(t.getHours())}:${two(t.getMinutes())}` + (seconds === false ? "" : `:${two(t.getSeconds())}`);
  if (t.toDateString() === new Date().toDateString()) return clock;
  return `${t.getFullYear()}-${two(t.getMonth() + 1)}-${two(t.getDate())} ${clock}`;
}

// The server wrote its times in the station's time zone: say them again in this device's.
function localTimes(root) {
  (root || document).querySelectorAll("time.local[datetime]").forEach(el => {
    el.textContent = localTime(el.getAttribute("datetime"), el.dataset.seconds !== "no");
  });
  (root || document).querySelectorAll("option[data-time]").forEach(el => {
    el.textContent = el.textContent.replace(el.dataset.timeShown, localTime(el.dataset.time, false));
    el.dataset.timeShown = localTime(el.dataset.time, false);
  });
}
localTimes();
