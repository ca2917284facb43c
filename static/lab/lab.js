// A lab run's page: draws the progress bar and every table from the run's figures
// (GET /api/lab/<id>/, also embedded in the page as #lab-initial). While the run is open
// the socket ws/lab/<id>/ says when a chunk of matches was recorded and the page reads
// the figures again; when the socket is down (or drops) the page polls every 2 s instead.

const root = document.querySelector("[data-lab]");
const OPEN = new Set(["queued", "running"]);
const POLL_MS = 2000;
let current = null;
let socket = null;
let pollTimer = null;
let fetching = null;

const $ = (selector) => root.querySelector(selector);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const pct = (value) => (value === null || value === undefined ? "—" : `${(100 * value).toFixed(1)}%`);
const points = (value) => (value === null || value === undefined ? "—"
  : `${value >= 0 ? "+" : "−"}${Math.abs(100 * value).toFixed(1)}`);
const interval = (t) => (t.low === null ? "—" : `${pct(t.low)} – ${pct(t.high)}`);
const record = (t) => `${t.wins}-${t.draws}-${t.losses}`;

function rows(selector, items, cells) {
  const body = $(`${selector} tbody`);
  body.replaceChildren(...items.map((item) => el("tr", {}, ...cells(item).map((cell) => el("td", {}, cell)))));
}

function render(run) {
  current = run;
  const status = $("[data-lab-status]");
  status.textContent = run.status[0].toUpperCase() + run.status.slice(1);
  status.className = `status-pill status-${run.status}`;
  const share = run.matches_wanted ? run.progress / run.matches_wanted : 0;
  const bar = $("[data-lab-bar]");
  bar.setAttribute("aria-valuenow", run.progress);
  bar.firstElementChild.style.width = `${Math.round(100 * (run.status === "done" ? 1 : share))}%`;
  const doing = { queued: "Waiting for a worker", running: "Playing", done: "Finished", cancelled: "Cancelled",
    failed: "Failed" }[run.status];
  $("[data-lab-progress]").textContent = `${doing}: ${run.progress} of ${run.matches_wanted} matches played.`;
  const error = $("[data-lab-error]");
  error.hidden = !run.error;
  error.textContent = run.error || "";
  $("[data-lab-cancel]").hidden = !OPEN.has(run.status);

  const o = run.overall;
  const headline = $("[data-lab-overall]");
  headline.replaceChildren(
    el("p", { class: "lab-rate" }, el("strong", { "data-lab-win-rate": "" }, pct(o.win_rate)), " win rate"),
    el("p", {}, `95% interval ${interval(o)} · ${record(o)} (wins-draws-losses) in ${o.matches} matches`),
  );
  if (o.needs_more_games) {
    headline.append(el("p", { class: "notice", "data-lab-needs-more": "" },
      "Needs more games: the interval is wider than 10 points."));
  }
  rows("[data-lab-opponents]", run.by_opponent, (t) => [
    t.deck_id ? el("span", {}, `${t.deck} `, el("span", { class: "muted" }, `v${t.version} · ${t.owner}`)) : t.deck,
    t.matches, record(t), pct(t.win_rate), interval(t)]);
  rows("[data-lab-seats]", [["On the play", run.by_seat.play], ["On the draw", run.by_seat.draw]],
    ([name, t]) => [name, t.matches, record(t), pct(t.win_rate), interval(t)]);
  rows("[data-lab-cards]", run.cards, (c) => [c.card, c.drawn, pct(c.win_rate_drawn), points(c.improvement_drawn),
    c.played, pct(c.win_rate_played), points(c.improvement_played)]);
  $("[data-lab-length]").textContent = run.average_actions === null ? "No game finished yet."
    : `Games last ${run.average_actions.toFixed(1)} actions on average.`;
  rows("[data-lab-endings]", run.endings, (e) => [e.ending, e.matches]);
  const list = $("[data-lab-matches]");
  const letters = { win: "W", loss: "L", draw: "D" };
  list.replaceChildren(...run.results.map(([number, outcome, seat]) => el("li", {},
    el("a", { href: `${root.dataset.replayBase}${number}/replay/`, class: `lab-result lab-${outcome}`,
      title: `Match ${number}: ${outcome}, on the ${seat === 0 ? "play" : "draw"}` },
    `${number} ${letters[outcome]}${seat === 0 ? "▸" : "▹"}`))));
  if (!OPEN.has(run.status)) stopUpdates();
}

async function refresh() {
  if (fetching) return fetching;
  fetching = fetch(root.dataset.apiUrl, { headers: { Accept: "application/json" } })
    .then((response) => (response.ok ? response.json() : null))
    .then((body) => { if (body) render(body); })
    .catch(() => {})
    .finally(() => { fetching = null; });
  return fetching;
}

function setLiveState(text) { $("[data-live-state]").textContent = text; }

function startPolling() {
  if (pollTimer || !OPEN.has(current.status)) return;
  setLiveState("Updates every 2 s");
  pollTimer = setInterval(refresh, POLL_MS);
  refresh();
}

function stopUpdates() {
  if (pollTimer) clearInterval(pollTimer);
  pollTimer = null;
  setLiveState("");
  if (socket) { const s = socket; socket = null; s.close(); }
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
    if (event.type === "lab.progress" && (event.progress !== current.progress || event.status !== current.status)) {
      refresh();
    }
  });
  // A socket that fails or drops falls back to polling; a finished run needs neither.
  socket.addEventListener("close", () => { if (socket && OPEN.has(current.status)) startPolling(); });
  socket.addEventListener("error", () => startPolling());
}

if (root) {
  render(JSON.parse(document.getElementById("lab-initial").textContent));
  if (OPEN.has(current.status)) {
    connect();
    // A recorded chunk between the page's render and the socket's join would be missed.
    refresh();
  }
}
