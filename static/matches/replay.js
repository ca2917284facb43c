// Replay viewer: fetches pages of GET /api/matches/<id>/replay/?game=N&from=I&count=K (the
// frames the engine reconstructs from the action log, PAGE positions at a time) as the
// user steps, draws the board of the current frame, keeps the event log of the current
// page beside it, and steps, jumps, plays at a chosen speed and links to any action
// (?game=N&action=K, K = 0 for the start). Only the pages shown are ever fetched.

import { renderBoard } from "./boards.js";

const root = document.querySelector("[data-replay]");

const PAGE = 50;

const state = {
  data: null, // the first page's body: seats, outcome, totals
  frames: new Map(), // position -> frame
  loading: new Map(), // page start -> pending fetch
  total: 0,
  logPage: -1,
  game: 1,
  position: 0, // 0 = before the first action; K = after action K
  perspective: "all",
  timer: null,
};

const $ = (selector) => root.querySelector(selector);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// A seat as people know it: in a live match the person (or the bot that filled the seat)
// with the deck second; in a bot match the deck its pilot played.
function seatName(seat) {
  const info = state.data.seats[seat];
  if (!info) return `Seat ${seat}`;
  if (root.dataset.live === "1") {
    return `${info.pilot === "human" ? info.owner : `bot ${info.pilot}`} (${info.deck})`;
  }
  return `Seat ${seat} · ${info.deck}`;
}

// Who played each engine seat, as the page's header names them (matches/views.py,
// _player_of): "you", a player or "bot greedy" in a live match, the deck in a bot match.
// Two seats of one name (a deck against itself) also say whose deck it is.
function playerNames() {
  const entries = JSON.parse(document.getElementById("replay-entries")?.textContent ?? "[]");
  const names = state.data.seats.map((info) => entries.find((e) => e.seat === info.entry)?.name ?? info.deck);
  const twice = (list, name) => list.filter((n) => n === name).length > 1;
  const owned = names.map((name, seat) => (twice(names, name) ? `${name} (${state.data.seats[seat].owner})` : name));
  return owned.map((name, seat) => (twice(owned, name) ? `${name.slice(0, -1)}, seat ${seat})` : name));
}

function lastPosition() {
  return state.total - 1;
}

function pageOf(position) {
  return Math.floor(position / PAGE) * PAGE;
}

async function fetchPage(start) {
  const response = await fetch(`${root.dataset.apiUrl}?game=${state.game}&from=${start}&count=${PAGE}`,
    { headers: { Accept: "application/json" } });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const problems = body?.error?.fields?.replay ?? [];
    throw new Error((body?.error?.message ?? `The replay could not be loaded (HTTP ${response.status}).`)
      + (problems.length > 1 ? ` (${problems.length} problems)` : ""));
  }
  body.frames.forEach((frame, offset) => state.frames.set(body.from + offset, frame));
  return body;
}

// The page holding ``position``, fetched once; a page cut short by the server's size cap
// is followed by the next request for the frames it left out.
function ensure(position) {
  if (state.frames.has(position)) return Promise.resolve();
  const key = pageOf(position);
  let start = key;
  while (start < position && state.frames.has(start)) start += 1;
  if (!state.loading.has(key)) {
    state.loading.set(key, fetchPage(start).finally(() => state.loading.delete(key)));
  }
  return state.loading.get(key).then(() => (state.frames.has(position) ? undefined : ensure(position)));
}

function permalink(position = state.position) {
  const url = new URL(location.href);
  url.searchParams.set("game", state.game);
  url.searchParams.set("action", position);
  return url;
}

function visible(event) {
  if (event.private_to === undefined || event.private_to === null) return true;
  if (state.perspective === "all") return true;
  return String(event.private_to) === state.perspective;
}

// ------------------------------------------------------------------ log

function actionLabel(frame) {
  if (frame.index < 0) return "Start";
  const kind = frame.action?.kind ?? "action";
  return `${frame.index + 1}. ${seatName(frame.seat)}: ${kind.replaceAll("_", " ")}`;
}

// A private event is written to its seat ("You drew ..."). Shown beside the other seats'
// private events ("Every seat's cards"), it names whose it is.
function eventText(event) {
  const privateTo = event.private_to;
  if (privateTo === undefined || privateTo === null || state.perspective !== "all") return event.text;
  return `${seatName(privateTo)}: ${event.text}`;
}

function renderLog() {
  const log = $("[data-log]");
  state.logPage = pageOf(state.position);
  const positions = [];
  for (let p = state.logPage; p < Math.min(state.total, state.logPage + PAGE); p += 1) {
    if (state.frames.has(p)) positions.push(p);
  }
  const items = positions.map((position) => {
    const frame = state.frames.get(position);
    const lines = frame.events.filter(visible).map((event) =>
      el("li", { class: `log-event log-${event.kind}${event.private_to !== undefined ? " log-private" : ""}` },
        eventText(event)));
    return el("li", { class: "log-frame", "data-position": position },
      el("button", { type: "button", class: "log-action", onclick: () => go(position) }, actionLabel(frame)),
      lines.length ? el("ul", {}, ...lines) : null);
  });
  log.replaceChildren(...items);
}

function highlightLog() {
  const log = $("[data-log]");
  log.querySelector(".log-frame.current")?.classList.remove("current");
  const item = log.querySelector(`[data-position="${state.position}"]`);
  if (item) {
    item.classList.add("current");
    // Scroll the log box itself (never the page) so the current line is in view.
    const box = log.parentElement;
    const top = item.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
    if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - Math.min(item.clientHeight, box.clientHeight / 2)) {
      box.scrollTop = Math.max(0, top - box.clientHeight / 3);
    }
  }
}

// ------------------------------------------------------------------ board and controls

function draw() {
  const frame = state.frames.get(state.position);
  if (!frame) return;
  if (pageOf(state.position) !== state.logPage) renderLog();
  renderBoard($("[data-board]"), {
    game: state.data.game,
    views: frame.views,
    perspective: state.perspective,
    seats: state.data.seats,
    players: playerNames(),
    frame,
    final: state.position === lastPosition(),
    outcome: state.data.outcome,
    tiebreak: state.data.tiebreak,
  });
  $("[data-slider]").value = state.position;
  $("[data-counter]").textContent = `Action ${state.position} of ${lastPosition()}`;
  $("[data-permalink]").href = permalink().toString();
  history.replaceState(null, "", permalink());
  highlightLog();
}

function go(position) {
  state.position = Math.max(0, Math.min(lastPosition(), position));
  if (state.position === lastPosition()) pause();
  const wanted = state.position;
  if (!state.frames.has(wanted)) {
    $("[data-counter]").textContent = `Action ${wanted} of ${lastPosition()} (loading…)`;
    $("[data-slider]").value = wanted;
  }
  ensure(wanted).then(() => {
    if (state.position === wanted) draw();
    // Fetch the next page a little before the user reaches it.
    const next = pageOf(wanted) + PAGE;
    if (next <= lastPosition() && wanted >= next - 10) ensure(next).catch(() => {});
  }).catch((error) => { pause(); showError(error.message); });
}

function play() {
  if (state.timer) return;
  if (state.position === lastPosition()) state.position = 0;
  $("[data-play]").textContent = "❚❚ Pause";
  $("[data-play]").setAttribute("aria-label", "Pause");
  state.timer = setInterval(() => go(state.position + 1), Number($("[data-speed]").value));
}

function pause() {
  if (state.timer) clearInterval(state.timer);
  state.timer = null;
  $("[data-play]").textContent = "▶ Play";
  $("[data-play]").setAttribute("aria-label", "Play");
}

function setupPerspectives() {
  const select = $("[data-perspective]");
  const options = [];
  if (state.data.all_seats) options.push(["all", "Every seat's cards"]);
  state.data.seats.forEach((seat) => {
    if (state.data.all_seats) options.push([String(seat.seat), `${seatName(seat.seat)}'s view`]);
  });
  options.push(["public", "Spectator (public)"]);
  select.replaceChildren(...options.map(([value, label]) => el("option", { value }, label)));
  if (!options.some(([value]) => value === state.perspective)) state.perspective = options[0][0];
  select.value = state.perspective;
}

function bindControls() {
  for (const button of root.querySelectorAll("[data-step]")) {
    button.addEventListener("click", () => {
      pause();
      const step = button.dataset.step;
      go(step === "first" ? 0 : step === "last" ? lastPosition()
        : state.position + (step === "forward" ? 1 : -1));
    });
  }
  $("[data-play]").addEventListener("click", () => (state.timer ? pause() : play()));
  $("[data-slider]").addEventListener("input", (event) => { pause(); go(Number(event.target.value)); });
  $("[data-speed]").addEventListener("change", () => { if (state.timer) { pause(); play(); } });
  $("[data-perspective]").addEventListener("change", (event) => {
    state.perspective = event.target.value;
    renderLog();
    draw();
  });
  $("[data-permalink]").addEventListener("click", async (event) => {
    event.preventDefault();
    const url = permalink().toString();
    try {
      await navigator.clipboard.writeText(url);
      event.target.textContent = "Link copied";
    } catch (error) {
      event.target.textContent = "Link in the address bar";
    }
    setTimeout(() => { event.target.textContent = "Permalink"; }, 1500);
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowRight") { pause(); go(state.position + 1); }
    else if (event.key === "ArrowLeft") { pause(); go(state.position - 1); }
    else if (event.key === "Home") { pause(); go(0); }
    else if (event.key === "End") { pause(); go(lastPosition()); }
    else if (event.key === " ") { event.preventDefault(); state.timer ? pause() : play(); }
  });
}

// ------------------------------------------------------------------ loading

function showError(message) {
  const box = $("[data-replay-error]");
  box.textContent = message;
  box.hidden = false;
  $("[data-replay-loading]").hidden = true;
}

async function load() {
  const params = new URLSearchParams(location.search);
  state.game = Math.max(1, Number(params.get("game")) || 1);
  const wanted = Number(params.get("action"));
  for (const tab of root.querySelectorAll("[data-game-tab]")) {
    if (Number(tab.dataset.gameTab) === state.game) tab.setAttribute("aria-current", "page");
  }
  const start = Number.isFinite(wanted) && params.has("action") ? pageOf(Math.max(0, wanted)) : 0;
  let body;
  try {
    body = await fetchPage(start);
  } catch (error) {
    showError(error instanceof TypeError ? "The replay could not be loaded: the site did not answer." : error.message);
    return;
  }
  state.data = body;
  state.total = body.total_frames;
  $("[data-game-title]").textContent = `· game ${body.number} of ${body.games}`;
  $("[data-replay-loading]").hidden = true;
  $("[data-replay-body]").hidden = false;
  $("[data-slider]").max = lastPosition();
  const actions = `${body.actions_count} action${body.actions_count === 1 ? "" : "s"}`;
  $("[data-verified]").textContent = (body.verified_at
    ? `Reconstructed by the engine from its log of ${actions}; verified ${new Date(body.verified_at).toLocaleString()}.`
    : `Reconstructed by the engine from its log of ${actions}.`)
    + (body.all_seats ? "" : " The match is still being played: only what spectators see is shown until it ends.");
  const download = $("[data-download]");
  if (download) {
    download.hidden = !body.all_seats;
    download.href = `${root.dataset.apiUrl}?game=${state.game}&download=1`;
  }
  setupPerspectives();
  bindControls();
  state.position = Number.isFinite(wanted) && params.has("action") ? Math.max(0, Math.min(lastPosition(), wanted)) : 0;
  go(state.position);
}

if (root && Number(root.dataset.games) > 0) load();
