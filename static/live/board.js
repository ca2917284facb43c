// The board of a live match: draws the seat's (or the public) view the server sends over
// /ws/live/<id>/, offers only the legal actions the server listed, keeps the event log,
// runs the clocks between messages, and plans Conquest placement on one screen.
import { renderBoard } from "../matches/boards.js";

const root = document.querySelector("[data-live-match]");
const $ = (selector) => root.querySelector(selector);
const seatText = root.dataset.seat;
const mySeat = seatText === "" ? null : Number(seatText);
let socket = null;
let current = null;
let received = 0;
let plan = null; // Conquest placement: {location: card}
let retry = 500;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A card id as the seat's view names it (its hand first), else the id itself. */
function cardName(id) {
  const view = current?.view ?? {};
  const pools = [view.hand, view.reserve, view.scouting, view.players?.flatMap((p) => p.discard ?? [])];
  for (const pool of pools) {
    const card = (pool ?? []).find((c) => c && c.id === id);
    if (card?.name) return card.name;
  }
  return id;
}

function label(action) {
  const parts = Object.entries(action).filter(([key]) => key !== "kind")
    .map(([key, value]) => {
      const text = key === "card" || key === "cards"
        ? (Array.isArray(value) ? value.map(cardName).join(", ") : cardName(value))
        : (Array.isArray(value) ? value.join(", ") : value);
      return `${key.replaceAll("_", " ")} ${text}`;
    });
  const kind = action.kind.replaceAll("_", " ");
  return parts.length ? `${kind} · ${parts.join(" · ")}` : kind;
}

function formatClock(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

function showError(message) {
  const node = $("[data-error]");
  node.textContent = message;
  node.hidden = !message;
}

function send(frame) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
}

function act(action) {
  showError("");
  send({ type: "act", action, index: current.index });
  $("[data-actions]").querySelectorAll("button").forEach((b) => { b.disabled = true; });
}

function drawClocks() {
  if (!current) return;
  const elapsed = Date.now() - received;
  $("[data-clocks]").replaceChildren(...current.clocks.map((clock) => {
    const left = clock.running && current.status === "active" ? clock.remaining_ms - elapsed : clock.remaining_ms;
    const player = current.players[clock.seat];
    return el("div", { class: `live-clock${clock.running ? " running" : ""}${clock.seat === mySeat ? " mine" : ""}`,
      "data-clock-seat": clock.seat },
      el("span", {}, `Seat ${clock.seat} · ${player?.name ?? ""}`),
      el("strong", {}, clock.timed_out ? "out of time" : formatClock(left)));
  }));
  const prompt = $("[data-prompt]");
  const mine = current.clocks.find((c) => c.seat === mySeat);
  if (current.legal.length && mine) {
    const kind = current.view.phase === "response" || current.view.chain?.length ? "Respond" : "Your move";
    prompt.textContent = `${kind}: ${formatClock(mine.remaining_ms - elapsed)} left`;
    prompt.hidden = false;
  } else {
    prompt.hidden = true;
  }
}

function drawPlacement(payload) {
  const panel = $("[data-placement]");
  const placing = payload.legal.length && payload.legal.every((a) => a.kind === "place");
  if (!placing) { panel.hidden = true; panel.dataset.location = ""; plan = null; return false; }
  const location = payload.legal[0].location;
  if (plan && plan[location] !== undefined) {
    const choice = payload.legal.find((a) => a.card === plan[location]) ?? payload.legal.find((a) => a.card === "empty");
    delete plan[location];
    act(choice);
    return true;
  }
  // Another seat's move while this one is choosing: keep the choices made so far.
  if (!panel.hidden && panel.dataset.location === String(location)) return false;
  panel.dataset.location = String(location);
  const hand = payload.view.hand ?? [];
  const locations = (payload.view.locations ?? []).filter((loc) => loc.in_skirmish !== false)
    .map((loc) => loc.number).filter((n) => n >= location);
  const rows = locations.map((n) => el("label", { class: "placement-row" }, `Location ${n} `,
    el("select", { "data-location": n },
      el("option", { value: "empty" }, "leave empty"),
      hand.map((card) => el("option", { value: card.id }, card.name)))));
  const confirm = el("button", { type: "button", class: "button", "data-confirm-placement": true }, "Confirm placement");
  confirm.addEventListener("click", () => {
    // A card chosen twice goes to the first Location; later ones fall back to empty.
    plan = {};
    for (const select of panel.querySelectorAll("select")) plan[Number(select.dataset.location)] = select.value;
    panel.replaceChildren(el("p", { class: "muted", "data-placing": true }, "Placing your cards…"));
    drawPlacement(current);
  });
  panel.replaceChildren(el("p", { class: "muted" }, "Assign a card from your hand to each Location, then confirm."),
    ...rows, confirm);
  panel.hidden = false;
  return false;
}

function draw(payload) {
  current = payload;
  received = Date.now();
  const views = { public: payload.view };
  if (payload.seat !== null) views[String(payload.seat)] = payload.view;
  renderBoard($("[data-board]"), {
    game: payload.game,
    views,
    perspective: payload.seat === null ? "public" : String(payload.seat),
    seats: Object.fromEntries(payload.players.map((p) => [p.seat, { deck: `${p.name} (${p.deck})`, pilot: p.pilot }])),
    frame: null,
    final: payload.status === "done",
    outcome: payload.outcome,
    tiebreak: payload.outcome?.detail?.match_the_twos ?? [],
  });
  root.dataset.index = payload.index;
  root.dataset.state = payload.status;
  const status = $("[data-live-status]");
  status.textContent = payload.status === "done" ? "Finished" : (payload.legal.length ? "Your turn" : "Playing");
  status.dataset.state = payload.status;
  const log = $("[data-log]");
  if (payload.opening) log.replaceChildren();
  for (const event of payload.events) log.append(el("li", { "data-kind": event.kind }, event.text));
  log.scrollTop = log.scrollHeight;
  if (!drawPlacement(payload)) {
    const placing = !$("[data-placement]").hidden;
    $("[data-actions]").replaceChildren(...(placing ? [] : payload.legal.map((action) => {
      const button = el("button", { type: "button", class: "button button-small", "data-action": JSON.stringify(action) },
        label(action));
      button.addEventListener("click", () => act(action));
      return button;
    })));
  }
  if (payload.status === "done") {
    $("[data-actions]").replaceChildren(el("p", {}, "The match is over. ",
      el("a", { href: `/matches/${payload.match}/replay/?game=1` }, "Watch the replay")));
    root.querySelector("[data-resign]")?.setAttribute("hidden", "");
  }
  drawClocks();
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}${root.dataset.wsPath}`);
  socket.addEventListener("open", () => { retry = 500; });
  socket.addEventListener("message", (message) => {
    const payload = JSON.parse(message.data);
    if (payload.type === "error") {
      showError(payload.message);
      if (current) draw({ ...current, events: [], opening: false });
      return;
    }
    if (payload.type !== "view") return;
    // Views can arrive out of order: my own move's view is sent by this web process while
    // a bot's next move may be sent sooner by a worker. A late (older) view is dropped;
    // a view that skips one asks the server for the whole view, whose events rebuild the log.
    if (current && !payload.opening && payload.index <= current.index) return;
    const gap = current && !payload.opening && payload.index > current.index + 1;
    draw(payload);
    if (gap) send({ type: "view" });
  });
  socket.addEventListener("close", (event) => {
    if (event.code === 4404) { showError("There is no such live match."); return; }
    $("[data-live-status]").textContent = "Reconnecting…";
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 8000);
  });
}

root.querySelector("[data-resign]")?.addEventListener("click", () => {
  if (confirm("Resign this match?")) send({ type: "resign" });
});
setInterval(drawClocks, 250);
connect();
