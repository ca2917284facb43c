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
// Conquest placement being sent, one Location at a time: picks {location: card id or
// "empty"}, and the Location whose pick is on its way (waiting).
let plan = null;
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

/** "Location 1: Militia; Location 2: empty" for a plan {location: card id or "empty"}. */
function planText(locations, plan) {
  return locations.map((n) => `Location ${n}: ${!plan[n] || plan[n] === "empty" ? "empty" : cardName(plan[n])}`).join("; ");
}

// Conquest placement is one form, from the server's `placement`: for each Location still to
// fill, the cards the engine takes there and how many copies of each may go down in all. A
// card is offered at a Location only while it is chosen fewer times elsewhere than that, so
// every Confirm sends placements the engine accepts; nothing is dropped on the way.
function drawPlacement(payload) {
  const panel = $("[data-placement]");
  const choices = payload.placement;
  if (!choices || !payload.legal.length) {
    plan = null;
    const placing = payload.view?.placing;
    if (placing?.confirmed && payload.status === "active") {
      // Confirmed, waiting for the others: the seat's own picks, as the server holds them.
      const text = placing.locations.map((n, i) => `Location ${n}: ${placing.picks[i]?.name ?? "empty"}`).join("; ");
      panel.dataset.mode = "confirmed";
      panel.replaceChildren(el("p", { class: "placement-summary", "data-placement-confirmed": true },
        el("strong", {}, "Placement confirmed: "), text),
      el("p", { class: "muted" }, "Face down until every player has confirmed."));
      panel.hidden = false;
    } else {
      panel.hidden = true;
      panel.dataset.mode = "";
    }
    return false;
  }
  const location = choices.locations[0].location;
  // Another seat moved while this seat's pick for the Location is on its way: wait for it.
  if (plan && plan.waiting === location) return true;
  if (plan && plan.picks[location] !== undefined) {
    const wanted = plan.picks[location];
    const choice = payload.legal.find((a) => a.location === location && a.card === wanted);
    if (choice) {
      plan.waiting = location;
      act(choice);
      return true;
    }
    // The engine no longer takes this pick: say so and let the player choose again.
    plan = null;
    showError(`${cardName(wanted)} cannot be placed at Location ${location} any more: choose again.`);
    panel.dataset.mode = "";
  }
  // Another seat's move while this one is choosing: keep the choices made so far.
  if (!panel.hidden && panel.dataset.mode === "form" && panel.dataset.location === String(location)) return false;
  plan = null;
  panel.dataset.mode = "form";
  panel.dataset.location = String(location);
  const numbers = choices.locations.map((loc) => loc.location);
  const selects = choices.locations.map((loc) => el("select", { "data-location": loc.location },
    el("option", { value: "empty" }, "leave empty")));
  const summary = el("span", { "data-placement-summary": true });
  const chosen = () => Object.fromEntries(selects.map((select) => [Number(select.dataset.location), select.value]));
  const refresh = () => {
    const picks = chosen();
    selects.forEach((select, index) => {
      const here = Number(select.dataset.location);
      const elsewhere = {};
      for (const [n, card] of Object.entries(picks)) if (Number(n) !== here) elsewhere[card] = (elsewhere[card] ?? 0) + 1;
      const offered = choices.locations[index].cards.filter((card) => (elsewhere[card] ?? 0) < (choices.copies[card] ?? 0));
      const keep = offered.includes(select.value) ? select.value : "empty";
      select.replaceChildren(el("option", { value: "empty" }, "leave empty"),
        ...offered.map((card) => el("option", { value: card }, cardName(card))));
      select.value = keep;
    });
    summary.textContent = planText(numbers, chosen());
  };
  selects.forEach((select) => select.addEventListener("change", refresh));
  const rows = selects.map((select, index) => el("label", { class: "placement-row" },
    el("span", {}, `Location ${numbers[index]}`), select));
  const confirm = el("button", { type: "button", class: "button", "data-confirm-placement": true }, "Confirm placement");
  confirm.addEventListener("click", () => {
    plan = { picks: chosen(), waiting: null };
    panel.dataset.mode = "sending";
    panel.replaceChildren(el("p", { class: "placement-summary", "data-placing": true },
      el("strong", {}, "Placing: "), planText(numbers, plan.picks)));
    drawPlacement(current);
  });
  panel.replaceChildren(
    el("p", { class: "muted" }, "Choose a unit from your hand for each Location (or leave it empty), then confirm."),
    ...rows,
    el("p", { class: "placement-summary" }, el("strong", {}, "Your plan: "), summary),
    confirm);
  refresh();
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
  const acted = drawPlacement(payload);
  // The placement form replaces the list of choices (and its "nothing to choose" line).
  $("[data-actions]").hidden = !$("[data-placement]").hidden && payload.status !== "done";
  if (!acted) {
    const placing = !$("[data-placement]").hidden;
    $("[data-actions]").replaceChildren(...(placing ? [] : payload.legal.map((action) => {
      const button = el("button", { type: "button", class: "button button-small", "data-action": JSON.stringify(action) },
        label(action));
      button.addEventListener("click", () => act(action));
      return button;
    })));
  }
  if (payload.status === "done") {
    // Seats that ran out of time rank last (the server's final places, not the engine's).
    const late = payload.outcome?.timed_out ?? [];
    const lateText = late.length
      ? `${late.map((s) => `Seat ${s}`).join(", ")} ran out of time and ${late.length === 1 ? "ranks" : "rank"} last. `
      : "";
    $("[data-actions]").replaceChildren(el("p", { "data-final": true }, "The match is over. ", lateText,
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
      plan = null; // a refused pick stops the placement being sent: the form comes back
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
    if (payload.opening) plan = null; // after a reconnect, choose from the position as it is
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
