// Match page: status, progress, result and games, kept current without a reload.
//
// The worker broadcasts every change to the match's group (ws/matches/<id>/) after it
// commits; each "match.update" carries the same JSON as GET /api/matches/<id>/, and
// "match.progress" tells how far the current game is, and "match.board" carries the
// running game's public board (at most one frame every 0.5 s), drawn under "Live board"
// with the replay viewer's renderer until the match is over. When the site has no channel
// layer that crosses processes (data-live="0"), or the socket fails, the page polls the
// API every 2 s instead until the match is finished.

import { renderBoard } from "./boards.js";

const root = document.querySelector("[data-match-page]");
const LOG_LIMIT = 40;
const POLL_MS = 2000;
const FINISHED = new Set(["done", "failed"]);
const STATUS_LABELS = { queued: "Queued", running: "Running", done: "Done", failed: "Failed" };

let entries = [];
let current = null;
let pollTimer = null;
let socket = null;
// Whether this viewer may open the match's replays. The page's own data says it for them
// (their decks, the events they run); a socket update is the same for every watcher, so it
// is written as to an anonymous visitor (``replays_hidden_until``, set while a deck is
// hidden): it hides the replays only from a viewer the page did not open them to, and opens
// them to everyone once no deck is hidden any more.
let replaysOpenToMe = true;

function replaysHidden(match) {
  if (match.replays_hidden_until === null || match.replays_hidden_until === undefined) replaysOpenToMe = true;
  return !replaysOpenToMe;
}

// An entry as the page names it: the person or bot of a live match ("you" for the
// viewer), the deck of a bot match (matches/views.py, _player_of).
function deckName(entry) {
  const found = entries.find((e) => e.seat === entry);
  return found?.name ?? found?.deck ?? `Entry ${entry + 1}`;
}

function winnerWords(entry, seat) {
  if (entry?.you) return [el("strong", {}, "You"), " win the match", el("span", { class: "muted" }, ` with ${entry.deck}`), "."];
  if (entry?.player) {
    return [el("strong", {}, entry.player), " wins the match", el("span", { class: "muted" }, ` with ${entry.deck}`), "."];
  }
  return [el("strong", {}, deckName(seat)), " wins the match."];
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

function progressText(match, game, actions) {
  if (match.status === "queued") return "Waiting for a worker…";
  if (match.status === "failed") return "The match failed.";
  if (match.status === "done") return `Finished: ${match.progress} game${match.progress === 1 ? "" : "s"} played.`;
  if (match.waiting_for_tiebreak) return `Game ${match.progress} ended tied: Match the Twos is breaking the tie…`;
  const played = `${match.progress} of up to ${match.best_of} game${match.best_of === 1 ? "" : "s"} finished`;
  return game ? `Playing game ${game} (${actions} actions so far); ${played}.` : `Playing: ${played}.`;
}

function renderGames(match, hidden) {
  const body = root.querySelector("[data-games-body]");
  body.replaceChildren(...match.games.map((game) => {
    const errors = game.bot_errors.length
      ? game.bot_errors.map((error) => el("div", { class: "bot-error" }, `Seat ${error.seat}: ${error.text}`))
      : [el("span", { class: "muted" }, "none")];
    return el("tr", {},
      el("td", {}, game.number),
      el("td", {}, game.seat_order.map((entry, seat) => `S${seat} ${deckName(entry)}`).join(" · ")),
      el("td", {}, (game.winner === null ? (game.forfeited?.length ? "None" : "Draw") : deckName(game.winner))
        + (game.forfeited?.length ? " (forfeit)" : "")),
      el("td", {}, game.reason + (game.tiebreak ? " · Match the Twos" : "")),
      el("td", {}, game.actions),
      el("td", {}, ...errors),
      el("td", {}, hidden ? el("span", { class: "muted", "data-replay-hidden": "" }, "hidden")
        : el("a", { href: game.replay_url }, "Watch replay")));
  }));
  root.querySelector("[data-games-table]").hidden = match.games.length === 0;
  root.querySelector("[data-games-empty]").hidden = match.games.length > 0;
}

// The seed and salt arrive (non-null) only once the match is over.
function renderFairness(match) {
  const revealed = match.seed !== null && match.seed !== undefined && Boolean(match.seed_salt);
  for (const node of root.querySelectorAll("[data-seed-reveal]")) node.hidden = !revealed;
  root.querySelector("[data-seed-pending]").hidden = revealed;
  if (revealed) {
    root.querySelector("[data-seed]").textContent = String(match.seed);
    root.querySelector("[data-seed-salt]").textContent = match.seed_salt;
  }
}

function render(match, progress = null) {
  current = match;
  const pill = root.querySelector("[data-match-status]");
  pill.textContent = STATUS_LABELS[match.status] ?? match.status;
  pill.className = `status-pill status-${match.status}`;
  root.dataset.status = match.status;
  root.querySelector("[data-match-progress]").textContent =
    progressText(match, progress?.game, progress?.actions);
  // A decided match fills the bar: a 2-0 best of 3 is finished, not two thirds done.
  const done = match.status === "done";
  const bar = root.querySelector("[data-progress-bar]");
  bar.setAttribute("aria-valuenow", match.progress);
  bar.setAttribute("aria-valuemax", done ? match.progress : match.best_of);
  bar.firstElementChild.style.width = done ? "100%" : `${Math.round((100 * match.progress) / match.best_of)}%`;
  const hidden = replaysHidden(match);
  const replay = root.querySelector("[data-match-replay]");
  replay.hidden = !(done && match.games.length) || hidden;
  if (match.games.length) replay.querySelector("a").href = match.games[0].replay_url;
  // The "Challenge queued" notice belongs to a match still waiting to be played.
  if (FINISHED.has(match.status)) {
    for (const flash of document.querySelectorAll(".flash-list")) flash.remove();
  }
  const result = root.querySelector("[data-match-result]");
  result.hidden = match.status !== "done";
  if (match.status === "done") {
    const forfeited = match.result?.forfeited ?? [];
    result.replaceChildren(...(match.winner === null
      ? [forfeited.length ? "No one wins the match." : "The match is a draw."]
      : winnerWords(entries.find((e) => e.seat === match.winner), match.winner)));
    if (forfeited.length) {
      const names = forfeited.map((seat) => deckName(seat)).join(", ");
      result.append(" ", el("span", {class: "muted", "data-match-forfeit": ""},
        `Decided by forfeit (${names} did not show up): not rated.`));
    }
  }
  const error = root.querySelector("[data-match-error]");
  error.hidden = !match.error;
  error.textContent = match.error || "";
  const wins = match.result?.wins ?? [];
  const places = match.status === "done" ? match.result?.places ?? [] : [];
  for (const row of root.querySelectorAll("[data-entry]")) {
    row.querySelector("[data-entry-wins]").textContent = wins[Number(row.dataset.entry)] ?? 0;
    row.querySelector("[data-entry-place]").textContent = places[Number(row.dataset.entry)] ?? "—";
  }
  renderGames(match, hidden);
  renderFairness(match);
  if (match.status !== "running") hideBoard();
  if (FINISHED.has(match.status)) stopPolling();
}

// The public board of the game being played, as the worker streams it.
let boardGame = null;
function drawBoard(frame) {
  const panel = root.querySelector("[data-live-board-panel]");
  if (!current || current.status !== "running") return;
  const log = root.querySelector("[data-live-board-log]");
  if (boardGame !== frame.game) log.replaceChildren();
  boardGame = frame.game;
  const order = frame.seat_order ?? [];
  const seats = Object.fromEntries(order.map((entry, seat) => {
    const info = entries.find((e) => e.seat === entry);
    return [seat, { deck: info?.deck ?? `Entry ${entry + 1}`, owner: info?.owner, pilot: info?.pilot }];
  }));
  renderBoard(root.querySelector("[data-live-board]"), {
    game: root.dataset.game, views: { public: frame.view }, perspective: "public", seats,
    frame: null, final: false, outcome: null, tiebreak: [],
  });
  for (const event of frame.events ?? []) log.prepend(el("li", { "data-kind": event.kind }, event.text));
  while (log.children.length > LOG_LIMIT) log.lastElementChild.remove();
  root.querySelector("[data-live-board-caption]").textContent =
    `Game ${frame.game} · ${frame.actions} action${frame.actions === 1 ? "" : "s"}${frame.over ? " · game over" : ""}` +
    " · public view: hands, deck order and face-down cards stay hidden";
  panel.dataset.actions = frame.actions;
  panel.dataset.gameNumber = frame.game;
  panel.hidden = false;
}

function hideBoard() {
  root.querySelector("[data-live-board-panel]").hidden = true;
}

function setLiveState(text) {
  root.querySelector("[data-live-state]").textContent = text;
}

async function poll() {
  try {
    const response = await fetch(root.dataset.apiUrl, { headers: { Accept: "application/json" } });
    if (response.ok) render(await response.json());
  } catch (error) {
    setLiveState("Connection lost; retrying…");
  }
}

function startPolling() {
  if (pollTimer || FINISHED.has(current?.status)) return;
  setLiveState("Updates every 2 s");
  pollTimer = setInterval(poll, POLL_MS);
  poll();
}

function stopPolling() {
  if (pollTimer) clearInterval(pollTimer);
  pollTimer = null;
  if (FINISHED.has(current?.status)) {
    setLiveState("Final");
    socket?.close();
  }
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  try {
    socket = new WebSocket(`${scheme}://${location.host}${root.dataset.wsPath}`);
  } catch (error) {
    startPolling();
    return;
  }
  socket.addEventListener("open", () => setLiveState("Live updates"));
  socket.addEventListener("message", (message) => {
    const event = JSON.parse(message.data);
    if (event.type === "match.update") render(event.match);
    else if (event.type === "match.board") drawBoard(event);
    else if (event.type === "match.progress" && current?.status === "running") {
      root.querySelector("[data-match-progress]").textContent = progressText(current, event.game, event.actions);
    }
  });
  // A socket that fails or drops falls back to polling; finished matches need neither.
  socket.addEventListener("close", () => { if (!FINISHED.has(current?.status)) startPolling(); });
  socket.addEventListener("error", () => startPolling());
}

if (root) {
  entries = JSON.parse(document.getElementById("match-entries").textContent);
  const initial = JSON.parse(document.getElementById("match-initial").textContent);
  replaysOpenToMe = initial.replays_hidden_until === null || initial.replays_hidden_until === undefined;
  render(initial);
  if (!FINISHED.has(current.status)) {
    if (root.dataset.live === "1") connect();
    else startPolling();
  } else {
    setLiveState("Final");
  }
}
