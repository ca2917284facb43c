// Highcard's board: each player's played cards and their total, the hand (every card is
// public) and the cards left in the deck. It registers with the platform's game-neutral
// boards.js; the replay viewer and the live board load this script for a Highcard match.
import { baseView, el, outcomeBanner, registerBoard, seatLabel, stat, who } from "../matches/boards.js";

const VALUES = { One: 1, Two: 2, Three: 3, Four: 4, Five: 5 };
const total = (cards) => cards.reduce((sum, card) => sum + (VALUES[card] ?? 0), 0);

function card(name) {
  return el("li", { class: "hc-card", "data-value": VALUES[name] ?? null, title: `Worth ${VALUES[name] ?? "?"}` },
    el("span", { class: "hc-card-value" }, VALUES[name] ?? "?"), el("span", { class: "hc-card-name" }, name));
}

function renderHighcard(container, ctx) {
  const view = baseView(ctx);
  const over = Boolean(ctx.final && ctx.outcome);
  const seats = view.seats.map((seat, n) => el("section", {
    class: `hc-seat board-player seat-${n}${!over && view.turn === n ? " hc-acting" : ""}`, "data-seat": n,
  },
  el("h3", {}, seatLabel(ctx, n)),
  el("div", { class: "stat-row" },
    stat("Total", total(seat.played)), stat("Played", `${seat.played.length} of ${view.rounds}`),
    stat("Deck", seat.deck)),
  el("ol", { class: "hc-played", "aria-label": "Played", "data-played": n }, seat.played.map(card)),
  el("p", { class: "hc-hand", "data-hand": n }, el("span", { class: "stat-label" }, "Hand "),
    seat.hand.length ? seat.hand.join(", ") : "empty")));
  container.replaceChildren(el("div", { class: "board-highcard game-board", "data-game": "highcard" },
    el("div", { class: "board-header" }, stat("Rounds", view.rounds),
      stat("To act", over ? "—" : who(ctx, view.turn, true))),
    outcomeBanner(ctx),
    el("div", { class: "hc-seats" }, seats)));
}

registerBoard("highcard", { render: renderHighcard, scoreLabel: "Total" });
