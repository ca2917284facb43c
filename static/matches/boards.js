// The board of a replay or a live match, drawn by the game's own renderer: each game's
// package ships a `board.js` (site/static/<game>/board.js) that calls
// registerBoard("<game>", {...}) with its hooks, and a page that draws a board loads the
// script of the game it shows (`{% game_board_script game %}`) before its own. This module
// names no game: it keeps the registry, the helpers every renderer uses (exported below)
// and a generic board (the view's JSON) for a game without a renderer.
//
// A game's board (every hook but render is optional):
//   render(container, ctx)       draws a frame from the views the engine produced
//                                (state.view(seat) per seat, state.view(None) as "public")
//   outcomeExtra(ctx)            a node under the outcome (a tie-break's record)
//   parts(action, seat)          {source, steps}: how the live board offers one legal action
//                                (choices.js); without it every action is a button
//   placeWords(place, seat)      words for one of its place keys ("your left Vanguard")
//   place(board, key)            the board element a place key names
//   verbs, preposition(action, i), describe(action, seat, nameOf)   the words of an action
//   handZones                    [[label, view key]]: the zones the hand strip shows
//   scoreLabel                   what a numeric score is called ("Points")
//   finalBoard(payload)          {view, note}: a board cleared at the end, as it was scored
//
// renderBoard(container, ctx): ctx.views ({public, "0", "1", ...}), ctx.perspective
// ("all", "public" or a seat number as a string), ctx.seats (per engine seat: deck,
// owner, pilot), ctx.frame, ctx.final (last frame), ctx.outcome and ctx.tiebreak (the
// game's final outcome and its Match the Twos records). A live board also gives
// ctx.names (per seat: "you" for the reader's own, the player's name for the others: the
// board then says them instead of "Seat 1") and ctx.boardNote (a caption over the board).
// The replay viewer gives ctx.players (per seat: who played it as the page's header names
// them, "you", a player or "bot greedy", or the deck of a bot match): the outcome and
// Match the Twos say them ("alice wins", "1st alice, 2nd bob").

import { explainTerms } from "../js/glossary.js";

export function el(tag, attrs = {}, ...children) {
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

export const titleCase = (text) => String(text ?? "").replaceAll("_", " ").replace(/^\w/, (c) => c.toUpperCase());

/** How the board names a seat: "you" or a player's name on a live board, else "Seat 1". */
export function who(ctx, seat, capital = false) {
  const name = ctx.names?.[seat] ?? `Seat ${seat}`;
  return capital && name === "you" ? "You" : name;
}

/** A slot's label: whose it is (and which row), "You · Vanguard" or "S0 Vanguard". */
export function slotLabel(ctx, seat, row = "") {
  if (!ctx.names) return `S${seat}${row ? ` ${row}` : ""}`;
  return row ? `${who(ctx, seat, true)} · ${row}` : who(ctx, seat, true);
}

export function seatLabel(ctx, seat) {
  const info = ctx.seats[seat];
  const name = who(ctx, seat, true);
  return info ? `${name} · ${info.deck}` : name;
}

/** The view to draw the shared board from: a seat's own, or the public one. */
export function baseView(ctx) {
  if (ctx.perspective !== "all" && ctx.perspective !== "public" && ctx.views[ctx.perspective]) {
    return ctx.views[ctx.perspective];
  }
  return ctx.views.public;
}

/** Seats whose hidden cards are shown under the current perspective. */
export function shownSeats(ctx) {
  if (ctx.perspective === "all") return Object.keys(ctx.views).filter((k) => k !== "public").map(Number);
  if (ctx.perspective === "public") return [];
  return [Number(ctx.perspective)];
}

export function cardList(cards, empty = "none") {
  if (!cards || !cards.length) return el("span", { class: "muted" }, empty);
  return el("ul", { class: "card-chips" }, cards.map((card) => el("li", { class: "chip", title: card.text ?? null, "data-card-id": card.id ?? null }, card.name)));
}

// A stat's label names a rules term where there is one (a game's glossary term):
// glossary.js explains it on hover and focus and links its glossary entry.
/** A player's discard pile (public), folded: "Discard (3)" opens its cards. */
export function discardPile(p) {
  if (!p.discard?.length) return null;
  return el("details", { class: "zone zone-discard", "data-discard": p.seat },
    el("summary", { class: "stat-label" }, `Discard (${p.discard.length})`), cardList(p.discard));
}

export function stat(label, value, extra = null) {
  return el("div", { class: "stat" }, el("span", { class: "stat-label", "data-term": label }, label),
    el("strong", {}, value), extra);
}

/** 1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd". */
export function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] ?? "th");
  return `${n}${suffix}`;
}

/** "a", "a and b", "a, b and c". */
export function listWords(words) {
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}` : words.join("");
}

/** Who played a seat, as the outcome says it (ctx.players; else "Seat 1 · deck"). */
export function playerName(ctx, seat, capital = false) {
  const name = ctx.players?.[seat] ?? seatLabel(ctx, seat);
  return capital && name === "you" ? "You" : name;
}

export function outcomeBanner(ctx) {
  if (!ctx.final || !ctx.outcome) return null;
  const places = ctx.outcome.places ?? [];
  const winner = ctx.outcome.winner;
  // A live game decided by a no-show: the seats that forfeited (engine seats).
  const forfeited = ctx.outcome.detail?.forfeited ?? [];
  const winnerName = winner === null || winner === undefined ? null : playerName(ctx, winner, true);
  const head = winnerName === null
    ? (forfeited.length ? "Nobody wins the game" : "The game is a draw")
    : `${winnerName} ${winnerName === "You" ? "win" : "wins"}`;
  const how = forfeited.length
    ? `by forfeit (${listWords(forfeited.map((seat) => playerName(ctx, seat)))} did not show up)`
    : `by ${ctx.outcome.reason}`;
  // "1st alice, 2nd bob": best place first, seats that share a place side by side.
  const standing = places.map((place, seat) => ({ place, seat })).sort((a, b) => a.place - b.place || a.seat - b.seat)
    .map(({ place, seat }) => `${ordinal(place)} ${playerName(ctx, seat)}`);
  return el("div", { class: "outcome-banner", "data-outcome": true },
    el("strong", {}, `${head} ${how}.`),
    standing.length ? el("span", { class: "muted", "data-places": true }, ` ${standing.join(", ")}`) : null,
    boardOf(ctx.game)?.outcomeExtra?.(ctx) ?? null);
}

// ------------------------------------------------------------------ fallback

function renderGeneric(container, ctx) {
  container.replaceChildren(el("div", { class: "board-generic game-board", "data-game": ctx.game },
    outcomeBanner(ctx),
    el("p", { class: "muted" }, "This game has no board drawing yet; its view as the engine reports it:"),
    el("pre", {}, JSON.stringify(baseView(ctx), null, 1))));
}

const BOARDS = {};

/** Register a game's board (its package's board.js calls this once). */
export function registerBoard(game, board) {
  BOARDS[game] = board;
}

/** The board a game registered, or null. */
export function boardOf(game) {
  return BOARDS[game] ?? null;
}

export function renderBoard(container, ctx) {
  const render = boardOf(ctx.game)?.render ?? renderGeneric;
  render(container, ctx);
  explainTerms(container);
}
