// The board of a live match: draws the seat's (or the public) view the server sends over
// /ws/live/<id>/ and lets the player act on it: a card in hand (or a unit on the board) is
// chosen, the places the server's legal actions allow for it light up, and a click on one
// sends that action. Actions without a place are buttons in the choice bar; the full list
// of choices stays as a keyboard and screen-reader fallback. Everything offered is one of
// the server's `legal` actions, sent exactly as listed. A placement the server asks for all
// at once (the payload's `placement`) is planned on the board (click or drag a card onto a
// Location), spelled out, then confirmed. What is game-specific (how an action is cut into
// steps, which element a place is, the hand's zones, the score's name) comes from the
// game's board, registered with boards.js by the game's own script, which the page loads.
import { boardOf, ordinal, renderBoard } from "../matches/boards.js";
import { attachTips, cardFace, cardInfo, el, loadCards, withCardNames } from "./cards.js";
import { decisionsOf, onBoard } from "./choices.js";

const root = document.querySelector("[data-live-match]");
const $ = (selector) => root.querySelector(selector);
const game = root.dataset.game;
const { describe, partsOf, placeWords } = decisionsOf(game);
const seatText = root.dataset.seat;
const mySeat = seatText === "" ? null : Number(seatText);
let socket = null;
let current = null;
let received = 0;
let retry = 500;
let reconnected = false;
// The index of the view an action was sent from, until a newer view (or an error) comes:
// the same view drawn again meanwhile must not offer the choices a second time.
let inFlight = null;
let inFlightSince = 0;
let probing = false;
// What the player has chosen on the board so far: a source ("card:<id>", "slot:...") and
// the places clicked after it. Reset by every new view.
let selection = null;
// A placement: picks {location: card id} planned on the board (or in the lists);
// once confirmed, `sending` and the Location whose pick is on its way (`waiting`).
let placing = { picks: {}, sending: false, waiting: null, location: null };

function showError(message) {
  const node = $("[data-error]");
  node.textContent = message;
  node.hidden = !message;
}

function send(frame) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
}

function act(action) {
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    // Nothing is sent while reconnecting: the whole view comes back with the connection.
    showError("Not connected: reconnecting, then choose again.");
    placing.sending = false;
    placing.waiting = null;
    return;
  }
  showError("");
  selection = null;
  inFlight = current.index;
  inFlightSince = Date.now();
  send({ type: "act", action, index: current.index });
  root.querySelectorAll("[data-actions] button, [data-bar] button").forEach((b) => { b.disabled = true; });
  root.dataset.sending = "1";
  root.querySelectorAll(".lb-target, .lb-source").forEach((node) => node.classList.remove("lb-target", "lb-source"));
}

/** A card id as the seat's view names it, else the pool's name, else the id. */
function cardName(id) {
  const view = current?.view ?? {};
  const pools = [view.hand, view.reserve, view.scouting, view.players?.flatMap((p) => p.discard ?? [])];
  for (const pool of pools) {
    const card = (pool ?? []).find((c) => c && c.id === id);
    if (card?.name) return card.name;
  }
  return cardInfo(id)?.name ?? id;
}

function formatClock(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

function seatName(seat) {
  if (seat === mySeat) return "You";
  return current?.players?.[seat]?.name ?? `Seat ${seat}`;
}

function drawClocks() {
  if (!current) return;
  const elapsed = Date.now() - received;
  $("[data-clocks]").replaceChildren(...current.clocks.map((clock) => {
    const left = clock.running && current.status === "active" ? clock.remaining_ms - elapsed : clock.remaining_ms;
    const player = current.players[clock.seat];
    return el("div", { class: `live-clock${clock.running ? " running" : ""}${clock.seat === mySeat ? " mine" : ""}`,
      "data-clock-seat": clock.seat },
    el("span", {}, clock.seat === mySeat ? "You" : player?.name ?? `Seat ${clock.seat}`,
      // A player who has not opened the board yet (a no-show may forfeit).
      player && !player.present && current.status === "active"
        ? el("em", { class: "live-absent", "data-absent": clock.seat }, " not here yet") : ""),
    el("strong", {}, clock.timed_out ? "out of time" : formatClock(left)));
  }));
  const prompt = $("[data-prompt]");
  const mine = current.clocks.find((c) => c.seat === mySeat);
  if (current.legal.length && mine && current.status === "active") {
    const kind = current.view.phase === "response" || current.view.chain?.length || current.view.window
      ? "Respond" : "Your move";
    prompt.textContent = `${kind}: ${formatClock(mine.remaining_ms - elapsed)} left`;
    prompt.hidden = false;
  } else {
    prompt.hidden = true;
  }
}

// ------------------------------------------------------------------ the board's places

/** The board element a place key names (the game's board says which; else the element
 * its renderer marked with data-place), or null. */
function placeElement(place) {
  const board = $("[data-board]");
  const own = boardOf(game)?.place;
  return own ? own(board, place) : board.querySelector(`[data-place="${CSS.escape(place)}"]`);
}

/** Every legal action of this seat with its source and the places it goes through. */
function choices() {
  if (mySeat === null || !current) return [];
  return current.legal.map((action) => ({ action, ...partsOf(action, mySeat) }));
}

function candidates() {
  if (!selection) return [];
  return choices().filter((c) => c.source === selection.source
    && selection.chosen.every((place, i) => c.steps[i] === place));
}

function choose(source) {
  if (root.dataset.sending) return;
  selection = selection?.source === source ? null : { source, chosen: [] };
  drawChoices();
}

function clickPlace(place) {
  if (!selection || root.dataset.sending) return;
  selection.chosen.push(place);
  const left = candidates();
  if (left.length === 1 && left[0].steps.length === selection.chosen.length) {
    act(left[0].action);
    return;
  }
  drawChoices();
}

// Places on the board are made clickable and keyboard-operable by marking them; one
// delegated listener serves them all (the board is redrawn on every view).
// The words of the action are added to the place's own text (hidden from sight), so that a
// screen reader announces what is there and what a click does.
function markPlace(node, { label, onPick, kind }) {
  node.classList.add(kind);
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  node.querySelector(":scope > .lb-words")?.remove();
  node.append(el("span", { class: "visually-hidden lb-words" }, `: ${label}`));
  node.dataset.pick = "1";
  node._pick = onPick;
}

function boardClick(event) {
  if (event.target.closest("[data-card-info]")) return;
  const node = event.target.closest("[data-pick]");
  if (node && node._pick) { event.preventDefault(); node._pick(); }
}

function boardKey(event) {
  if (event.key !== "Enter" && event.key !== " ") return;
  const node = event.target.closest("[data-pick]");
  if (node && node._pick && event.target === node) { event.preventDefault(); node._pick(); }
}

// ------------------------------------------------------------------ hand

function handCards(view) {
  // The game's board may show more zones than the hand (cards played from elsewhere).
  const zones = boardOf(game)?.handZones ?? [["Hand", "hand"]];
  return zones.flatMap(([zone, key]) => (view[key] ?? []).map((card) => ({ ...card, zone })));
}

function drawHand() {
  const panel = $("[data-hand-panel]");
  if (!panel) return;
  const view = current.view;
  const cards = handCards(view);
  const strip = $("[data-hand]");
  strip.dataset.hand = String(mySeat);
  const sources = new Set(choices().map((c) => c.source));
  const placement = placementMode();
  // Planned copies: the first n copies of a card in hand are the n picks of it.
  const planned = {};
  if (placement) for (const [loc, card] of Object.entries(placing.picks)) (planned[card] ??= []).push(Number(loc));
  const seen = {};
  strip.replaceChildren(...cards.map((card) => {
    const copy = (seen[card.id] = (seen[card.id] ?? 0) + 1) - 1;
    const plannedAt = placement ? planned[card.id]?.[copy] : undefined;
    const source = `card:${card.id}`;
    const usable = placement ? placeableCard(card.id) || plannedAt !== undefined : sources.has(source);
    const selected = selection?.source === source && plannedAt === undefined;
    const button = el("button", {
      type: "button",
      class: `hand-card${usable ? " playable" : ""}${selected ? " selected" : ""}${plannedAt !== undefined ? " planned" : ""}`,
      "data-card-id": card.id, "data-card-name": card.name, "data-zone": card.zone,
      "aria-pressed": selected ? "true" : "false",
      "aria-disabled": usable ? null : "true",
      "aria-describedby": "live-card-tip",
      draggable: placement && usable && plannedAt === undefined ? "true" : null,
    }, cardFace(card.id, { name: card.name, compact: true,
      extra: plannedAt !== undefined ? el("span", { class: "hand-note" }, `Location ${plannedAt}`)
        : card.zone !== "Hand" ? el("span", { class: "hand-note" }, card.zone) : null }),
    el("span", { class: "card-info", "data-card-info": true, "aria-hidden": "true", title: "Card text" }, "i"));
    button.addEventListener("click", () => {
      if (placement) {
        if (plannedAt !== undefined) { delete placing.picks[plannedAt]; selection = null; drawChoices(); return; }
        if (usable) choose(source);
        return;
      }
      if (usable) choose(source);
      else showSelected(card.id);
    });
    button.addEventListener("dragstart", (event) => {
      selection = { source, chosen: [] };
      event.dataTransfer.setData("text/plain", card.id);
      event.dataTransfer.effectAllowed = "move";
      // The dragged card stays in place (redrawing the hand would end the drag): only the
      // board lights the Locations that take it.
      requestAnimationFrame(() => drawChoices({ keepHand: true }));
    });
    return button;
  }));
  panel.hidden = false;
  const count = $("[data-hand-count]");
  if (count) count.textContent = cards.length ? `(${cards.length})` : "(empty)";
}

/** Show a card's text in the choice bar (a tap on a card that cannot be played now). */
function showSelected(cardId) {
  const info = $("[data-selected]");
  const card = cardInfo(cardId);
  info.replaceChildren(card ? el("span", {}, el("strong", {}, card.name), ` — ${card.type_line}. ${card.text}`) : "");
  info.hidden = !card;
}

// ------------------------------------------------------------------ placement

function placementMode() {
  return Boolean(current?.placement && current.legal.length && !placing.sending && current.status === "active");
}

/** The cards the engine takes at `location` that are not chosen up to their copies elsewhere. */
function offeredAt(location) {
  const choice = current.placement.locations.find((loc) => loc.location === location);
  if (!choice) return [];
  const elsewhere = {};
  for (const [n, card] of Object.entries(placing.picks)) {
    if (Number(n) !== location) elsewhere[card] = (elsewhere[card] ?? 0) + 1;
  }
  return choice.cards.filter((card) => (elsewhere[card] ?? 0) < (current.placement.copies[card] ?? 0));
}

/** A card that some Location still takes (its copies not all planned elsewhere). */
/** Whether one more copy of `card` could go to `location` (not already holding it). */
function takesAnother(location, card) {
  return placing.picks[location] !== card && offeredAt(location).includes(card);
}

function placeableCard(card) {
  return current.placement.locations.some((loc) => takesAnother(loc.location, card));
}

function planText(locations) {
  return locations.map((n) => `Location ${n}: ${placing.picks[n] ? cardName(placing.picks[n]) : "empty"}`).join("; ");
}

function confirmPlacement() {
  placing.sending = true;
  placing.waiting = null;
  selection = null;
  sendPlacement(current);
  drawChoices();
}

// The engine takes a placement one Location at a time: each view asks for the next one,
// and the planned pick (or "empty") is sent, exactly as the server listed it.
function sendPlacement(payload) {
  const choicesNow = payload.placement;
  if (!placing.sending || !choicesNow || !payload.legal.length) return false;
  const location = choicesNow.locations[0].location;
  if (placing.waiting === location) return true;
  const wanted = placing.picks[location] ?? "empty";
  const choice = payload.legal.find((a) => a.location === location && a.card === wanted);
  if (choice) {
    placing.waiting = location;
    act(choice);
    return true;
  }
  // The engine no longer takes this pick: say so and let the player choose again.
  placing = { picks: {}, sending: false, waiting: null, location: null };
  showError(`${cardName(wanted)} cannot be placed at Location ${location} any more: choose again.`);
  return false;
}

function drawPlacementPanel() {
  const panel = $("[data-placement]");
  if (!panel) return;
  const view = current.view;
  if (!placementMode()) {
    const mine = view?.placing;
    if (placing.sending && !mine?.confirmed && current.status === "active") {
      panel.replaceChildren(el("p", { class: "placement-summary", "data-placing": true },
        el("strong", {}, "Placing: "), planText(placingLocations())));
      panel.hidden = false;
    } else if (mine?.confirmed && current.status === "active") {
      const text = mine.locations.map((n, i) => `Location ${n}: ${mine.picks[i]?.name ?? "empty"}`).join("; ");
      panel.replaceChildren(el("p", { class: "placement-summary", "data-placement-confirmed": true },
        el("strong", {}, "Placement confirmed: "), text),
      el("p", { class: "muted" }, "Face down until every player has confirmed."));
      panel.hidden = false;
    } else {
      panel.hidden = true;
    }
    return;
  }
  const numbers = placingLocations();
  // Picks no longer offered (another pick took the last copy) leave the plan.
  for (const n of numbers) if (placing.picks[n] && !offeredAt(n).includes(placing.picks[n])) delete placing.picks[n];
  const selects = numbers.map((n) => {
    const select = el("select", { "data-location": n, "aria-label": `Location ${n}` },
      el("option", { value: "empty" }, "leave empty"),
      offeredAt(n).map((card) => el("option", { value: card }, cardName(card))));
    select.value = placing.picks[n] ?? "empty";
    select.addEventListener("change", () => {
      if (select.value === "empty") delete placing.picks[n]; else placing.picks[n] = select.value;
      drawChoices();
      root.querySelector(`[data-placement] select[data-location="${n}"]`)?.focus();
    });
    return el("label", { class: "placement-row" }, el("span", {}, `Location ${n}`), select);
  });
  const confirm = el("button", { type: "button", class: "button", "data-confirm-placement": true }, "Confirm placement");
  confirm.addEventListener("click", confirmPlacement);
  const clear = el("button", { type: "button", class: "button button-ghost button-small", "data-clear-placement": true },
    "Clear");
  clear.addEventListener("click", () => { placing.picks = {}; selection = null; drawChoices(); });
  const lists = el("details", { class: "placement-lists", "data-placement-lists": true },
    el("summary", {}, "Choose with lists"), selects);
  const wasOpen = panel.querySelector("[data-placement-lists]")?.open;
  if (wasOpen) lists.open = true;
  panel.replaceChildren(
    el("p", { class: "placement-summary" }, el("strong", {}, "Your plan: "),
      el("span", { "data-placement-summary": true }, planText(numbers))),
    el("div", { class: "bar-buttons" }, confirm, clear),
    lists);
  panel.hidden = false;
}

/** The Locations of the plan: those the server asks for, kept while the plan is sent. */
function placingLocations() {
  if (placementMode()) placing.locations = current.placement.locations.map((loc) => loc.location);
  return placing.locations ?? [];
}

function markPlacementBoard() {
  const selectedCard = selection?.source?.startsWith("card:") ? selection.source.slice(5) : null;
  for (const n of placingLocations()) {
    const node = placeElement(`loc:${n}`);
    if (!node) continue;
    const pick = placing.picks[n];
    if (pick) {
      const slot = node.querySelector(`.slot.seat-${mySeat}`);
      slot?.replaceChildren(el("span", { class: "slot-seat" }, `S${mySeat}`),
        el("div", { class: "unit unit-planned", "data-card-id": pick },
          el("span", { class: "planned-name" }, cardName(pick)), el("span", { class: "unit-tag" }, "planned")));
    }
    if (selectedCard && takesAnother(n, selectedCard)) {
      markPlace(node, { kind: "lb-target", label: `Place ${cardName(selectedCard)} at Location ${n}`,
        onPick: () => { placing.picks[n] = selectedCard; selection = null; drawChoices(); } });
      node.addEventListener("dragover", (event) => { event.preventDefault(); node.classList.add("lb-drop"); });
      node.addEventListener("dragleave", () => node.classList.remove("lb-drop"));
      node.addEventListener("drop", (event) => {
        event.preventDefault();
        placing.picks[n] = selectedCard;
        selection = null;
        drawChoices();
      });
    } else if (pick && !selectedCard) {
      markPlace(node, { kind: "lb-planned", label: `Take ${cardName(pick)} back from Location ${n}`,
        onPick: () => { delete placing.picks[n]; drawChoices(); } });
    }
  }
}

// ------------------------------------------------------------------ choices

/** Bring the lit places into view when none is (the hand may sit over the board on a phone). */
function revealTargets() {
  const targets = [...$("[data-board]").querySelectorAll(".lb-target")];
  if (!targets.length) return;
  const top = document.querySelector(".site-header")?.getBoundingClientRect().bottom ?? 0;
  const dock = $("[data-actions-panel]")?.getBoundingClientRect();
  const bottom = dock && getComputedStyle(dock ? $("[data-actions-panel]") : document.body).position === "fixed"
    ? dock.top : window.innerHeight;
  const seen = targets.some((node) => {
    const box = node.getBoundingClientRect();
    return box.top >= top && box.bottom <= bottom;
  });
  if (!seen) targets[0].scrollIntoView({ block: "center" });
}

function choiceButton(action, label, attrs = {}) {
  const card = typeof action.card === "string" && action.card !== "empty" ? action.card : null;
  const button = el("button", { type: "button", class: "button button-small", "data-choice": JSON.stringify(action),
    "data-card-id": card, ...attrs }, label);
  button.addEventListener("click", () => act(action));
  return button;
}

/** Redraw what depends on the selection: highlights, the hand, the bar and the fallback list. */
function drawChoices({ keepHand = false } = {}) {
  drawBoardOnly();
  if (mySeat === null) return;
  if (inFlight !== null && inFlight >= current.index) {
    // Still waiting for the answer to the action sent from this very view.
    root.querySelectorAll("[data-actions] button, [data-bar] button").forEach((b) => { b.disabled = true; });
    return;
  }
  inFlight = null;
  delete root.dataset.sending;
  const bar = $("[data-bar]");
  const hint = $("[data-bar-hint]");
  const all = choices();
  const done = current.status === "done";
  const placement = placementMode();
  if (!placement) placing.location = null;
  // Sources that can act light up; a chosen source lights its next places.
  if (!done && !placement) {
    for (const source of new Set(all.map((c) => c.source).filter(onBoard))) {
      const node = placeElement(source);
      if (!node) continue;
      const selected = selection?.source === source;
      markPlace(node, { kind: selected ? "lb-selected" : "lb-source",
        label: `${selected ? "Chosen" : "Choose"}: the unit on ${placeWords(source, mySeat)}`,
        onPick: () => choose(source) });
    }
  }
  const left = candidates();
  const next = new Map();
  for (const c of left) {
    const place = c.steps[selection.chosen.length];
    if (place) next.set(place, [...(next.get(place) ?? []), c]);
  }
  if (!placement) {
    for (const [place, options] of next) {
      const node = placeElement(place);
      if (!node) continue;
      const label = options.length === 1 ? describe(options[0].action, mySeat, cardName)
        : `${placeWords(place, mySeat)} (${options.length} choices)`;
      markPlace(node, { kind: "lb-target", label, onPick: () => clickPlace(place) });
    }
    for (const place of selection?.chosen ?? []) placeElement(place)?.classList.add("lb-chosen");
  } else {
    markPlacementBoard();
  }
  if (!keepHand) drawHand();
  drawPlacementPanel();
  if (selection) revealTargets();

  const buttons = [];
  let text = "";
  if (done) {
    text = "";
  } else if (!all.length) {
    text = current.placement === null && current.view?.placing?.confirmed ? "" : "Waiting for the other player…";
  } else if (placement) {
    text = selection ? `Now click a highlighted Location for ${cardName(selection.source.slice(5))} (or drag it there).`
      : "Place units face down: click a card in your hand, then a Location (or drag it). Confirm when your plan is ready.";
  } else if (selection) {
    const complete = left.filter((c) => c.steps.length === selection.chosen.length);
    for (const c of complete) buttons.push(choiceButton(c.action, describe(c.action, mySeat, cardName)));
    text = next.size ? "Click a highlighted place on the board." : "";
    const cancel = el("button", { type: "button", class: "button button-ghost button-small", "data-cancel": true }, "Cancel");
    cancel.addEventListener("click", () => { selection = null; drawChoices(); });
    buttons.push(cancel);
  } else {
    for (const c of all.filter((x) => x.source === null && !x.steps.length)) {
      buttons.push(choiceButton(c.action, describe(c.action, mySeat, cardName)));
    }
    const cardsToPlay = all.some((c) => c.source?.startsWith("card:"));
    const unitsToUse = all.some((c) => onBoard(c.source));
    text = [cardsToPlay ? "Choose a lit card in your hand" : null, unitsToUse ? "a lit unit on the board" : null]
      .filter(Boolean).join(", or ");
    const respond = current.view.phase === "response" || current.view.chain?.length || current.view.window;
    text = text ? `${text}${buttons.length ? " — or:" : "."}` : (respond ? "Respond, or let it resolve:" : "Choose:");
  }
  hint.textContent = text;
  hint.hidden = !text;
  bar.replaceChildren(...buttons);
  const selectedCard = selection?.source?.startsWith("card:") ? selection.source.slice(5) : null;
  if (selectedCard) showSelected(selectedCard); else $("[data-selected]").hidden = true;

  // The accessible fallback: every legal action as one button (placement has its lists).
  const list = $("[data-actions]");
  list.replaceChildren(...(placement ? [] : current.legal.map((action) => {
    const button = el("button", { type: "button", class: "button button-small", "data-action": JSON.stringify(action) },
      describe(action, mySeat, cardName));
    button.addEventListener("click", () => act(action));
    return button;
  })));
  $("[data-all-choices]").hidden = placement || done || !current.legal.length;
  $("[data-actions-panel]").dataset.state = done ? "done" : (all.length ? "choose" : "wait");
}

// ------------------------------------------------------------------ result

function reasonWords(outcome, seat) {
  const detail = outcome.detail ?? {};
  if ((outcome.forfeited ?? []).length) return "by forfeit";
  if (outcome.reason === "adjudicated") return "at the round's time limit";
  if ((outcome.timed_out ?? []).includes(seat)) return "on time";
  if (outcome.reason === "concession") {
    const why = detail.reason ?? "";
    if (why === "out of time") return "on time";
    if (why === "resigned") return "by resignation";
    return "by concession";
  }
  return `by ${outcome.reason}`;
}

function resultHeadline(payload) {
  const outcome = payload.outcome;
  const places = outcome.places ?? [];
  const n = places.length;
  const conceded = outcome.detail?.conceded ?? outcome.detail?.seat;
  const loser = (outcome.forfeited ?? [])[0] ?? (outcome.timed_out ?? [])[0] ?? conceded;
  if (mySeat !== null && places[mySeat] !== undefined) {
    const place = places[mySeat];
    const shared = places.filter((p) => p === place).length > 1;
    if (n > 2) {
      return { tone: place === 1 && !shared ? "won" : "placed",
        text: `You finished ${shared ? "joint " : ""}${ordinal(place)} of ${n}`,
        why: `${reasonWords(outcome, mySeat)}` };
    }
    // Both seats forfeited: they share the last place, and both lost.
    if (shared && place > 1) return { tone: "lost", text: `You lost ${reasonWords(outcome, mySeat)}`, why: "" };
    if (shared) return { tone: "draw", text: "Draw", why: reasonWords(outcome, mySeat) };
    if (place === 1) {
      const why = loser !== undefined && loser !== mySeat ? reasonWords(outcome, loser) : reasonWords(outcome, mySeat);
      return { tone: "won", text: `You won ${why}`, why: "" };
    }
    return { tone: "lost", text: `You lost ${reasonWords(outcome, mySeat)}`, why: "" };
  }
  const winner = places.indexOf(1);
  const shared = places.filter((p) => p === 1).length > 1;
  const why = loser !== undefined || outcome.reason === "adjudicated" ? reasonWords(outcome, loser)
    : `by ${outcome.reason}`;
  if (winner < 0) return { tone: "placed", text: "Nobody won", why };
  return shared ? { tone: "draw", text: "Draw", why } : { tone: "won", text: `${seatName(winner)} won ${why}`, why: "" };
}

// ------------------------------------------------------------------ next game of a series

// Once the next game of the series exists, the result offers it; a seated player is taken
// there after NEXT_SECONDS (the countdown is shown, and can be stopped), a spectator only
// gets the link.
const NEXT_SECONDS = 5;
let nextGame = null; // { url, deadline, timer, stopped }

function countdownText() {
  const left = Math.max(0, Math.ceil((nextGame.deadline - Date.now()) / 1000));
  return `Your next game opens in ${left} s`;
}

function tickNextGame() {
  if (!nextGame || nextGame.stopped) return;
  const node = $("[data-next-countdown]");
  if (node && node.textContent !== countdownText()) node.textContent = countdownText();
  if (Date.now() >= nextGame.deadline) {
    clearInterval(nextGame.timer);
    location.href = nextGame.url;
  }
}

function nextGamePanel(url) {
  const seated = mySeat !== null;
  if (seated && nextGame?.url !== url) {
    if (nextGame) clearInterval(nextGame.timer);
    nextGame = { url, deadline: Date.now() + NEXT_SECONDS * 1000, timer: setInterval(tickNextGame, 250), stopped: false };
  }
  const counting = seated && !nextGame.stopped;
  const stay = counting ? el("button", { type: "button", class: "button button-ghost button-small", "data-next-stay": true },
    "Stay here") : null;
  stay?.addEventListener("click", () => {
    nextGame.stopped = true;
    clearInterval(nextGame.timer);
    $("[data-next-countdown]")?.remove();
    stay.remove();
  });
  return el("div", { class: "result-next result-links", "data-next": true },
    el("a", { class: "button", href: url, "data-next-game": true }, "Next game →"),
    // A timer, not a live region: the count must not be read out every second.
    counting ? el("p", { class: "result-rating", role: "timer", "aria-live": "off", "data-next-countdown": true },
      countdownText()) : null,
    stay);
}

async function rematch(button, info) {
  button.disabled = true;
  const csrf = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="))?.split("=")[1] ?? "";
  const bot = info.bot !== undefined;
  try {
    const response = await fetch(bot ? "/api/live/bot/" : "/api/live/challenges/", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify(bot ? { deck: info.deck, bot: info.bot, seats: info.seats }
        : { deck: info.deck, username: info.username }),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error?.message ?? `the server answered ${response.status}`);
    location.href = bot ? data.url : "/live/";
  } catch (error) {
    button.disabled = false;
    showError(`No rematch: ${error.message}`);
  }
}

/** The final totals in words: "Points: You 104, bob 70" (what a one-number score is
 * called is the game board's `scoreLabel`, else "Score"), or for scores with several
 * parts, the one that decided first: "Integrity: You 12, bob 0 · Dominion: You 1, bob 3". */
function totalsText(payload) {
  const scores = payload.outcome?.scores ?? [];
  if (!scores.length || scores.some((s) => s === null || s === undefined)) return "";
  const line = (label, values) => `${label}: ${values.map((v, seat) => `${seatName(seat)} ${Math.max(0, v)}`).join(", ")}`;
  if (scores.every((s) => typeof s === "number")) return line(boardOf(payload.game)?.scoreLabel ?? "Score", scores);
  if (!scores.every((s) => typeof s === "object")) return "";
  const reason = String(payload.outcome.reason ?? "").toLowerCase();
  const keys = Object.keys(scores[0]).sort((a, b) => (b === reason) - (a === reason));
  return keys.filter((key) => scores.every((s) => typeof s[key] === "number"))
    .map((key) => line(key.charAt(0).toUpperCase() + key.slice(1), scores.map((s) => s[key]))).join(" · ");
}

function drawResult(payload) {
  const panel = $("[data-result]");
  if (payload.status !== "done" || !payload.outcome) { panel.hidden = true; return; }
  const totals = totalsText(payload);
  const head = resultHeadline(payload);
  const places = payload.outcome.places ?? [];
  const rating = payload.result?.rating;
  // A series that goes on offers its next game instead of a rematch.
  const nextUrl = payload.next_url ?? payload.result?.next_url ?? null;
  const info = nextUrl ? null : payload.result?.rematch;
  const ending = payload.result?.ending;
  const links = [];
  if (info) {
    const button = el("button", { type: "button", class: "button", "data-rematch": true },
      info.bot !== undefined ? "Rematch" : `Challenge ${info.username} again`);
    button.addEventListener("click", () => rematch(button, info));
    links.push(button);
  }
  links.push(el("a", { class: "button button-ghost", href: "/live/" }, "Back to the lobby"),
    el("a", { class: "button button-ghost", href: `/matches/${payload.match}/replay/?game=1` }, "Watch the replay"));
  const standings = places.length > 2 || mySeat === null
    // "1st: bob", "2nd: you": the place is the item's own word, the list draws no numbers.
    ? el("ol", { class: "result-places", "data-places": true }, places.map((place, seat) => ({ place, seat }))
      .sort((a, b) => a.place - b.place || a.seat - b.seat)
      .map(({ place, seat }) => el("li", { "data-place-seat": seat },
        `${ordinal(place)}: ${seat === mySeat ? "you" : seatName(seat)}`)))
    : null;
  panel.replaceChildren(...[
    el("h2", { class: `result-head result-${head.tone}`, "data-final": true }, head.text, head.why ? ` ${head.why}` : ""),
    totals ? el("p", { class: "result-totals", "data-totals": true }, totals) : null,
    ending ? el("p", { class: "result-rating", "data-ending": true }, ending) : null,
    nextUrl ? nextGamePanel(nextUrl) : null,
    rating ? el("p", { class: "result-rating", "data-rating-change": true }, "Rating ",
      el("strong", {}, `${rating.change >= 0 ? "+" : ""}${rating.change}`), ` (${rating.before} → ${rating.after})`) : null,
    standings,
    el("div", { class: "result-links" }, links)].filter(Boolean));
  panel.dataset.tone = head.tone;
  panel.hidden = false;
}

// ------------------------------------------------------------------ drawing

/** A game that clears its board at the end sends what stood there as it was scored
 * (`final_board`): its board's `finalBoard` draws that rather than an empty zone. */
function finalView(payload) {
  return boardOf(payload.game)?.finalBoard?.(payload) ?? { view: payload.view, note: null };
}

function drawBoardOnly() {
  const payload = current;
  const { view, note } = finalView(payload);
  const views = { public: view };
  if (payload.seat !== null) views[String(payload.seat)] = view;
  renderBoard($("[data-board]"), {
    game: payload.game,
    views,
    perspective: payload.seat === null ? "public" : String(payload.seat),
    seats: Object.fromEntries(payload.players.map((p) => [p.seat, { deck: p.deck, pilot: p.pilot }])),
    // The reader is "you", the others are named.
    names: Object.fromEntries(payload.players.map((p) => [p.seat, p.seat === mySeat ? "you" : p.name])),
    boardNote: note,
    frame: null,
    final: payload.status === "done",
    outcome: null, // the result panel says it in words
    tiebreak: [],
    bottom: mySeat ?? 0,
  });
  // The hand has a strip of its own (cards with their text), below the board.
  $("[data-board]").querySelectorAll(".zone-hand").forEach((node) => node.remove());
}

function draw(payload) {
  current = payload;
  received = Date.now();
  // Another seat's move keeps what the player had chosen, while it still leads somewhere.
  if (selection && !(placementMode() ? placeableCard(selection.source.slice(5)) : candidates().length)) selection = null;
  root.dataset.index = payload.index;
  root.dataset.state = payload.status;
  const status = $("[data-live-status]");
  status.textContent = payload.status === "done" ? "Finished" : (payload.legal.length ? "Your turn" : "Playing");
  status.dataset.state = payload.status;
  const log = $("[data-log]");
  if (payload.opening) log.replaceChildren();
  for (const event of payload.events) log.append(el("li", { "data-kind": event.kind }, withCardNames(event.text)));
  log.scrollTop = log.scrollHeight;
  if (!payload.placement) {
    // The placement is over (or not started): forget the plan once it has gone through.
    if (placing.sending && !payload.legal.length) placing.waiting = null;
    // (A view without choices during the placement, while another seat's move is applied,
    // keeps the plan being made.)
    if (!payload.legal.some((a) => a.kind === "place") && payload.view?.phase !== "placement") {
      placing = { picks: {}, sending: false, waiting: null, location: null };
    }
  } else if (!placing.sending) {
    // A new placement (another Battle) starts from an empty plan.
    const first = payload.placement.locations[0].location;
    if (placing.location !== null && placing.location !== first && !Object.keys(placing.picks).length) placing.picks = {};
    placing.location = first;
  }
  if (sendPlacement(payload)) {
    drawBoardOnly();
    drawPlacementPanel();
  } else {
    drawChoices();
  }
  const ended = payload.status === "done" && root.dataset.shown !== "done";
  drawResult(payload);
  if (ended) {
    // The end is brought into view, below the header and the bar of clocks, wherever the
    // player had scrolled.
    root.dataset.shown = "done";
    requestAnimationFrame(() => $("[data-result]").scrollIntoView({ block: "start" }));
  }
  if (payload.status === "done") {
    root.querySelector("[data-resign]")?.setAttribute("hidden", "");
    $("[data-hand-panel]")?.setAttribute("hidden", "");
    $("[data-actions-panel]")?.setAttribute("hidden", "");
    if (payload.result && payload.result.rating === null && payload.seat !== null && !payload.ratingAsked) {
      // The rating is recorded with the result; ask once more in case this view was sent first.
      setTimeout(() => send({ type: "view" }), 1500);
      payload.ratingAsked = true;
    }
  }
  drawClocks();
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}${root.dataset.wsPath}`);
  socket.addEventListener("open", () => { reconnected = current !== null; retry = 500; });
  socket.addEventListener("message", (message) => {
    const payload = JSON.parse(message.data);
    if (payload.type === "error") {
      inFlight = null;
      // A refused pick stops the placement being sent: the plan comes back to be changed.
      placing.sending = false;
      placing.waiting = null;
      showError(payload.message);
      if (current) draw({ ...current, events: [], opening: false });
      return;
    }
    if (payload.type === "presence") {
      // Another seat's player has opened the board.
      const player = current?.players?.find((p) => p.seat === payload.seat);
      if (player) { player.present = payload.present; drawClocks(); }
      return;
    }
    if (payload.type !== "view") return;
    // Views can arrive out of order: my own move's view is sent by this web process while
    // a bot's next move may be sent sooner by a worker. A late (older) view is dropped;
    // a view that skips one asks the server for the whole view, whose events rebuild the log.
    if (current && payload.index === current.index && current.status === "done" && payload.status === "done") {
      // The same final position again (asked for, or sent when the next game of the series
      // was linked): only the result may have changed (the rating, the next game).
      current.result = payload.result;
      current.next_url = payload.next_url;
      drawResult(current);
      return;
    }
    if (current && !payload.opening && payload.index <= current.index) return;
    const gap = current && !payload.opening && payload.index > current.index + 1;
    // The whole view again: a plan being made is kept. After a reconnect, a pick that was
    // on its way may have been lost: the plan goes on from the Location the server asks for.
    if (payload.opening && reconnected) { placing.waiting = null; inFlight = null; }
    // The answer to a probe (below): the position has not moved, so the action was not
    // applied; the choices are offered again (and a plan being sent goes on).
    if (payload.opening && probing && inFlight !== null && payload.index <= inFlight) {
      inFlight = null;
      placing.waiting = null;
    }
    if (payload.opening) probing = false;
    if (payload.opening) reconnected = false;
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

// The bar of clocks sticks under the site header: both heights are kept as CSS variables
// (the header wraps on a phone; the bar grows with the prompt).
function measureBars() {
  const header = document.querySelector(".site-header");
  const top = header && getComputedStyle(header).position === "sticky" ? header.offsetHeight : 0;
  document.documentElement.style.setProperty("--live-header", `${top}px`);
  document.documentElement.style.setProperty("--live-bar", `${$("[data-live-bar]")?.offsetHeight ?? 0}px`);
}
window.addEventListener("resize", measureBars);
if (window.ResizeObserver) {
  const sizes = new ResizeObserver(measureBars);
  [document.querySelector(".site-header"), $("[data-live-bar]")].filter(Boolean).forEach((node) => sizes.observe(node));
}
measureBars();

root.querySelector("[data-resign]")?.addEventListener("click", () => {
  if (confirm("Resign this match?")) send({ type: "resign" });
});
$("[data-board]").addEventListener("click", boardClick);
$("[data-board]").addEventListener("keydown", boardKey);
attachTips(root);
setInterval(() => {
  drawClocks();
  // No answer to an action for 8 s (a lost message): ask for the whole view again.
  if (inFlight !== null && !probing && Date.now() - inFlightSince > 8000) {
    probing = true;
    send({ type: "view" });
  }
}, 250);
loadCards(root.dataset.game).then(() => {
  connect();
});
