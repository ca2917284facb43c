// Board renderers of the replay viewer: one per game, each drawing a frame from the views
// the engine produced (state.view(seat) per seat, state.view(None) as "public").
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

const titleCase = (text) => String(text ?? "").replaceAll("_", " ").replace(/^\w/, (c) => c.toUpperCase());

/** How the board names a seat: "you" or a player's name on a live board, else "Seat 1". */
function who(ctx, seat, capital = false) {
  const name = ctx.names?.[seat] ?? `Seat ${seat}`;
  return capital && name === "you" ? "You" : name;
}

/** A slot's label: whose it is (and which row), "You · Vanguard" or "S0 Vanguard". */
function slotLabel(ctx, seat, row = "") {
  if (!ctx.names) return `S${seat}${row ? ` ${row}` : ""}`;
  return row ? `${who(ctx, seat, true)} · ${row}` : who(ctx, seat, true);
}

function seatLabel(ctx, seat) {
  const info = ctx.seats[seat];
  const name = who(ctx, seat, true);
  return info ? `${name} · ${info.deck}` : name;
}

/** The view to draw the shared board from: a seat's own, or the public one. */
function baseView(ctx) {
  if (ctx.perspective !== "all" && ctx.perspective !== "public" && ctx.views[ctx.perspective]) {
    return ctx.views[ctx.perspective];
  }
  return ctx.views.public;
}

/** Seats whose hidden cards are shown under the current perspective. */
function shownSeats(ctx) {
  if (ctx.perspective === "all") return Object.keys(ctx.views).filter((k) => k !== "public").map(Number);
  if (ctx.perspective === "public") return [];
  return [Number(ctx.perspective)];
}

function cardList(cards, empty = "none") {
  if (!cards || !cards.length) return el("span", { class: "muted" }, empty);
  return el("ul", { class: "card-chips" }, cards.map((card) => el("li", { class: "chip", title: card.text ?? null, "data-card-id": card.id ?? null }, card.name)));
}

// A stat's label names a rules term where there is one ("Conquest Pool", "Dominion"):
// glossary.js explains it on hover and focus and links its glossary entry.
/** A player's discard pile (public in both games), folded: "Discard (3)" opens its cards. */
function discardPile(p) {
  if (!p.discard?.length) return null;
  return el("details", { class: "zone zone-discard", "data-discard": p.seat },
    el("summary", { class: "stat-label" }, `Discard (${p.discard.length})`), cardList(p.discard));
}

function stat(label, value, extra = null) {
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
function listWords(words) {
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}` : words.join("");
}

/** Who played a seat, as the outcome says it (ctx.players; else "Seat 1 · deck"). */
function playerName(ctx, seat, capital = false) {
  const name = ctx.players?.[seat] ?? seatLabel(ctx, seat);
  return capital && name === "you" ? "You" : name;
}

function outcomeBanner(ctx) {
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
    tiebreakPanel(ctx));
}

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

// ------------------------------------------------------------------ Conquest

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
    return el("section", { class: `cq-player seat-${p.seat}`, "data-seat": p.seat },
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
  container.replaceChildren(el("div", { class: "board-conquest", "data-game": "conquest" }, header, outcomeBanner(ctx), windowBox, note, locations, players));
}

// ------------------------------------------------------------------ TempoFront

const FRONTS = ["left", "center", "right"];

function tfUnit(unit) {
  if (!unit) return el("div", { class: "unit unit-empty" }, "—");
  const statuses = Object.entries(unit.statuses ?? {}).filter(([, n]) => n).map(([name, n]) => `${titleCase(name)} ${n}`);
  // Every number is labelled (PWR Power, VIT Vitality left, PRE Presence, ARM Armor).
  const figure = (short, label, value) => el("span", { class: "unit-stat", title: `${label} ${value}` },
    el("abbr", { title: label }, short), " ", el("b", {}, value));
  return el("div", { class: `unit unit-revealed${unit.ready ? "" : " unit-exhausted"}`, title: unit.text ?? null,
    "data-card-id": unit.id ?? null },
    el("span", { class: "unit-name" }, unit.name),
    el("span", { class: "unit-stats" }, figure("PWR", "Power", unit.power),
      figure("VIT", "Vitality left", unit.vitality - unit.damage),
      unit.damage ? el("span", { class: "muted" }, ` (${unit.damage} dmg)`) : null),
    el("span", { class: "unit-meta" }, figure("PRE", "Presence", unit.presence),
      unit.armor ? figure("ARM", "Armor", unit.armor) : null),
    el("span", { class: "unit-tags" }, [...(unit.keywords ?? []), ...statuses, unit.ready ? null : "Exhausted"]
      .filter(Boolean).map((k) => el("span", { class: "unit-tag" }, k))),
    unit.attachments?.length ? el("span", { class: "unit-attach" }, "+ ",
      unit.attachments.flatMap((a, i) => [i ? ", " : null, el("span", { "data-card-id": a.id ?? null }, a.name)])) : null);
}

function tfPlayer(ctx, p, view) {
  // A Leader below 0 Integrity is simply defeated: the board never shows a negative number.
  const integrity = Math.max(0, p.integrity);
  const shown = shownSeats(ctx).includes(p.seat);
  const own = shown ? ctx.views[String(p.seat)] : null;
  return el("section", { class: `tf-player seat-${p.seat}${view.to_act.includes(p.seat) ? " acting" : ""}`, "data-seat": p.seat },
    el("h3", {}, seatLabel(ctx, p.seat), view.initiative === p.seat ? el("span", { class: "unit-tag" }, "Initiative") : null,
      p.passed ? el("span", { class: "unit-tag" }, "Passed") : null),
    el("p", { class: "leader", title: p.leader.text }, el("span", { class: "stat-label" }, "Leader "),
      el("strong", { "data-card-id": p.leader.id ?? null }, p.leader.name),
      p.leader.used ? el("span", { class: "unit-tag" }, "used") : null),
    el("div", { class: "stat-row" },
      stat("Integrity", integrity),
      stat("Dominion", p.dominion),
      stat("Focus", `${p.focus}/${p.max_focus}`),
      stat("Time", p.time),
      stat("Hand", p.hand_count),
      stat("Deck", p.deck_count),
      stat("Reserve", p.reserve_count),
      stat("Discard", p.discard.length)),
    own ? el("div", { class: "zone zone-hand", "data-hand": p.seat }, el("span", { class: "stat-label" }, "Hand"), cardList(own.hand, "empty")) : null,
    own && own.reserve?.length ? el("div", { class: "zone" }, el("span", { class: "stat-label" }, "Reserve"), cardList(own.reserve)) : null,
    own && own.scouting?.length ? el("div", { class: "zone" }, el("span", { class: "stat-label" }, "Scouting"), cardList(own.scouting)) : null,
    discardPile(p));
}

function timeline(ctx, view) {
  const max = view.timeline ?? 12;
  const marks = [];
  // A tick or marker is centred on its Time, except at either end: there its edge is, so
  // the first and last numbers and a name at 0 or at the last Time stay whole on the track
  // (a track that clips its overflow cut them; one that does not overflowed the board).
  const at = (time) => (100 * Math.max(0, Math.min(time, max))) / max;
  const shift = (time) => ({ 0: 0, 100: -100 }[at(time)] ?? -50);
  for (let t = 0; t <= max; t += 1) {
    marks.push(el("span", { class: "tick", style: `left:${at(t)}%; transform: translateX(${shift(t)}%)` }, t));
  }
  return el("div", { class: "timeline", "aria-label": "Timeline" },
    el("span", { class: "stat-label", "data-term": "Timeline" }, "Timeline"),
    el("div", { class: "timeline-track" }, marks,
      view.players.map((p) => el("span", {
        class: `time-marker seat-${p.seat}`, style: `left:${at(p.time)}%; transform: translateX(${shift(p.time)}%)`,
        title: `${who(ctx, p.seat, true)}: Time ${p.time}`,
      }, ctx.names ? who(ctx, p.seat, true) : `S${p.seat}`))));
}

/** A marker near an end whose name is wider than the room left (a long player name) is
 * moved back onto the track once the board is laid out. */
function keepMarkersOnTrack(container) {
  const track = container.querySelector(".timeline-track");
  if (!track) return;
  const edge = track.getBoundingClientRect();
  for (const marker of track.querySelectorAll(".time-marker")) {
    const box = marker.getBoundingClientRect();
    if (!box.width) continue;
    const over = box.left < edge.left ? edge.left - box.left : Math.min(0, edge.right - box.right);
    if (over) marker.style.translate = `${over}px 0`;
  }
}

function renderTempoFront(container, ctx) {
  const view = baseView(ctx);
  // ctx.bottom (default seat 0) is the seat drawn at the bottom: a player sees their own side near them.
  const bottom = ctx.bottom === 1 ? 1 : 0;
  const [near, far] = [view.players[bottom], view.players[1 - bottom]];
  const rowOf = (seat, front, row) => el("div", { class: `row seat-${seat}`, "data-row": row },
    el("span", { class: "slot-seat" }, slotLabel(ctx, seat, titleCase(row))), tfUnit(view.board[seat][front][row]));
  const header = el("div", { class: "board-header" },
    stat("Cycle", view.cycle),
    stat("Phase", titleCase(view.phase)),
    stat("Initiative", who(ctx, view.initiative, true)),
    stat("To act", view.to_act.length ? view.to_act.map((s) => who(ctx, s, true)).join(", ") : "—"));
  const fronts = el("div", { class: "tf-fronts" }, FRONTS.map((front) => el("section", { class: "front", "data-front": front },
    el("h4", {}, `${titleCase(front)} Front`,
      el("span", { class: "muted" }, ` Presence ${view.presence[front][0]} : ${view.presence[front][1]}`)),
    rowOf(1 - bottom, front, "support"),
    rowOf(1 - bottom, front, "vanguard"),
    el("div", { class: "row site", "data-row": "site" }, el("span", { class: "slot-seat" }, "Site"),
      view.sites[front]
        ? el("div", { class: `unit unit-site seat-${view.sites[front].owner}`, title: view.sites[front].text,
          "data-card-id": view.sites[front].id ?? null },
          el("span", { class: "unit-name" }, view.sites[front].name),
          el("span", { class: "unit-meta" }, `${who(ctx, view.sites[front].owner, true)} · Presence ${view.sites[front].presence}`))
        : el("div", { class: "unit unit-empty" }, "—")),
    rowOf(bottom, front, "vanguard"),
    rowOf(bottom, front, "support"))));
  // The chain is part of a game in progress: once the game is over it leaves the board
  // (a live board has no ctx.outcome, its view says the game is over).
  const chain = view.chain?.length && !(ctx.final && (ctx.outcome || view.outcome))
    ? el("div", { class: "response-window" }, el("strong", { "data-term": "Chain" }, "Chain"),
      el("ol", {}, view.chain.map((item) => el("li", {}, item.text + (item.cancelled ? " (cancelled)" : "")))))
    : null;
  container.replaceChildren(el("div", { class: "board-tempofront", "data-game": "tempofront" },
    header, outcomeBanner(ctx), timeline(ctx, view), chain, tfPlayer(ctx, far, view), fronts, tfPlayer(ctx, near, view)));
  keepMarkersOnTrack(container);
}

// ------------------------------------------------------------------ fallback

function renderGeneric(container, ctx) {
  container.replaceChildren(el("div", { class: "board-generic" },
    outcomeBanner(ctx),
    el("p", { class: "muted" }, "This game has no board drawing yet; its view as the engine reports it:"),
    el("pre", {}, JSON.stringify(baseView(ctx), null, 1))));
}

const RENDERERS = { conquest: renderConquest, tempofront: renderTempoFront };

export function renderBoard(container, ctx) {
  (RENDERERS[ctx.game] ?? renderGeneric)(container, ctx);
  explainTerms(container);
}
