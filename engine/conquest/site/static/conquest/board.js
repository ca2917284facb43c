// Conquest's board: the Battle Zone's Locations by Skirmish, each player's Conquest Pool,
// Upload Zone and hand, the response window, and Match the Twos under the outcome; and how
// the live board offers a placement's picks (a Location is the place a card goes).
// Registered with the game-neutral boards.js, which the replay viewer and the live board
// use; a page that shows a Conquest board loads this script first.
import {
  baseView, cardList, discardPile, el, outcomeBanner, playerName, listWords, registerBoard, seatLabel,
  shownSeats, slotLabel, stat, titleCase, who,
} from "../matches/boards.js";

function tiebreakPanel(ctx) {
  if (!ctx.tiebreak || !ctx.tiebreak.length) return null;
  return el("div", { class: "tiebreak", "data-tiebreak": true },
    el("h3", {}, "Match the Twos"),
    ctx.tiebreak.map((record) => el("div", { class: "tiebreak-group" },
      el("p", {}, `Tie between ${listWords(record.seats.map((s) => playerName(ctx, s)))}`),
      el("ol", { class: "tiebreak-rounds" }, record.rounds.map((round) => el("li", {},
        round.reveals.map((reveal) => el("span", { class: `reveal${reveal.matched_cq !== null ? " matched" : ""}` },
          `${playerName(ctx, reveal.seat, true)}: ${reveal.cards.join(" + ")}`,
          reveal.matched_cq !== null ? ` (match, CQ ${reveal.matched_cq})` : " (no match)")),
        round.winner !== null ? el("strong", {}, ` → ${playerName(ctx, round.winner)} ${playerName(ctx, round.winner) === "you" ? "take" : "takes"} the place`) : null))),
      record.shared.length ? el("p", {}, `The piles ran out: ${listWords(record.shared.map((s) => playerName(ctx, s)))} share the place.`) : null)));
}

function conquestUnit(ctx, unit, location, seat) {
  if (!unit) return el("div", { class: "unit unit-empty" }, "—");
  if (unit.face_down) {
    // The owner's own view names a face-down card; show it when that seat's cards are shown.
    const ownView = shownSeats(ctx).includes(seat) ? ctx.views[String(seat)] : null;
    const own = ownView?.locations?.find((loc) => loc.number === location.number)?.units?.[seat];
    return el("div", { class: "unit unit-face-down", title: "Face down", "data-card-id": own?.id ?? null },
      el("span", { class: "unit-name" }, own?.name ? own.name : "Face-down card"),
      el("span", { class: "unit-tags" }, el("span", { class: "unit-tag" }, "face down")));
  }
  const badges = [unit.muted ? "Muted" : null, unit.plagued ? "Plagued" : null].filter(Boolean);
  return el("div", { class: `unit unit-revealed${unit.plagued ? " unit-plagued" : ""}${unit.muted ? " unit-muted" : ""}`,
    "data-card-id": unit.id ?? null },
    el("span", { class: "unit-name" }, unit.name),
    el("span", { class: "unit-cq", title: `Conquest value: printed CQ ${unit.printed_cq}; counts ${unit.counts}` },
      el("abbr", { title: "Conquest value" }, "CQ"), ` ${unit.cq}`),
    badges.length ? el("span", { class: "unit-tags" }, badges.map((b) => el("span", { class: "unit-tag" }, b))) : null);
}

function renderConquest(container, ctx) {
  const view = baseView(ctx);
  const shown = shownSeats(ctx);
  const seats = view.players.map((p) => p.seat);
  const header = el("div", { class: "board-header" },
    stat("Battle", `${view.battle} of ${view.params?.battles ?? "?"}`),
    stat("Skirmish", titleCase(view.skirmish)),
    stat("Phase", titleCase(view.phase)),
    stat("Active", who(ctx, view.active, true)),
    stat("To act", view.to_act.length ? view.to_act.map((s) => who(ctx, s, true)).join(", ") : "—"));

  const players = el("div", { class: "cq-players" }, view.players.map((p) => {
    const hand = shown.includes(p.seat) ? ctx.views[String(p.seat)]?.hand : null;
    return el("section", { class: `cq-player board-player seat-${p.seat}`, "data-seat": p.seat },
      el("h3", {}, seatLabel(ctx, p.seat)),
      el("div", { class: "stat-row" },
        stat("Conquest Pool", p.conquest),
        stat("Hand", p.hand_count),
        stat("Deck", p.deck_count),
        stat("Discard", p.discard.length)),
      el("p", { class: "celestial" }, el("span", { class: "stat-label", "data-term": "Celestial" }, "Celestial "),
        el("strong", { "data-card-id": p.celestial?.id ?? null }, p.celestial?.name ?? "—"), p.celestial_played ? el("span", { class: "unit-tag" }, "played") : null),
      el("div", { class: "zone" }, el("span", { class: "stat-label", "data-term": "Upload Zone" }, "Upload Zone"), cardList(p.uploads, "empty")),
      discardPile(p),
      hand ? el("div", { class: "zone zone-hand", "data-hand": p.seat }, el("span", { class: "stat-label" }, "Hand"), cardList(hand, "empty")) : null);
  }));

  const locationBox = (loc) => el("section", {
    class: `location location-${loc.kind}${loc.in_skirmish ? " in-skirmish" : ""}`, "data-location": loc.number,
  },
  el("h4", {}, loc.label, el("span", { class: "muted" }, loc.kind === "extra" ? " extra" : ` ${loc.kind}`)),
  seats.map((seat) => el("div", { class: `slot seat-${seat}` },
    el("span", { class: "slot-seat" }, slotLabel(ctx, seat)), conquestUnit(ctx, loc.units[seat], loc, seat))));
  // The Forward and the Rear Skirmish each get a labelled row, Extra Locations a third.
  const rows = [["forward", "Forward Skirmish"], ["rear", "Rear Skirmish"], ["extra", "Extra Locations"]];
  const locations = el("div", { class: "cq-locations" }, rows.map(([kind, label]) => {
    const here = view.locations.filter((loc) => loc.kind === kind);
    return here.length
      ? el("div", { class: `cq-skirmish cq-skirmish-${kind}`, "data-skirmish": kind },
        el("p", { class: "cq-skirmish-label" }, label),
        el("div", { class: "cq-row", style: `--locations: ${here.length}` }, here.map(locationBox)))
      : null;
  }));

  let windowBox = null;
  if (view.window) {
    const w = view.window;
    windowBox = el("div", { class: "response-window" },
      el("strong", {}, `Response window: ${who(ctx, w.revealed.seat, true)} revealed ${w.revealed.name} at Location ${w.revealed.location}`),
      w.pending ? el("p", {}, `Pending: ${w.pending}`) : null,
      w.responses.length ? el("p", {}, `Responses: ${w.responses.map((r) => `${who(ctx, r.seat, true)}: ${r.name}`).join(", ")}`) : null,
      el("p", { class: "muted" }, `Waiting for ${who(ctx, w.waiting_for)}`));
  }
  const note = ctx.boardNote ? el("p", { class: "board-note", "data-final-board": true }, ctx.boardNote) : null;
  container.replaceChildren(el("div", { class: "board-conquest game-board", "data-game": "conquest" }, header, outcomeBanner(ctx), windowBox, note, locations, players));
}

/** A board cleared at the end of the game is drawn as it stood when it was scored. */
function finalBoard(payload) {
  const board = payload.status === "done" ? payload.final_board : null;
  const empty = (payload.view.locations ?? []).every((loc) => (loc.units ?? []).every((u) => !u));
  if (!board || !empty) return { view: payload.view, note: null };
  return { view: { ...payload.view, locations: board },
    note: `The board of Battle ${payload.view.battle} as it was scored, before it was cleared.` };
}

registerBoard("conquest", {
  render: renderConquest,
  outcomeExtra: tiebreakPanel,
  // A placement's pick goes to a Location; every other decision is a button.
  parts(action) {
    if (action.kind !== "place") return { source: null, steps: [] };
    const card = typeof action.card === "string" ? action.card : null;
    return { source: card && card !== "empty" ? `card:${card}` : null, steps: [`loc:${action.location}`] };
  },
  placeWords: (place) => (place.startsWith("loc:") ? `Location ${place.slice(4)}` : place),
  place: (board, key) => (key.startsWith("loc:")
    ? board.querySelector(`section.location[data-location="${key.slice(4)}"]`) : null),
  verbs: { respond: "Respond with", take: "Take", play_celestial: "Play your Celestial", place: "Place" },
  preposition: (action, index) => (action.kind === "place" && index === 0 ? "to" : "on"),
  describe: (action) => (action.kind === "place" && action.card === "empty" ? `Leave Location ${action.location} empty` : null),
  scoreLabel: "Conquest Pool",
  finalBoard,
});
