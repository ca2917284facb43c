// TempoFront's board: the Timeline, three Fronts with their Vanguard, Support and Site
// rows, each player's Leader, stats and zones; and how the live board offers its
// multi-step actions (a card, then a slot; a unit, then its target). Registered with the
// game-neutral boards.js; a page that shows a TempoFront board loads this script first.
//
// Place keys name the board's elements (see `place` below):
//   slot:<seat>.<front>.<row>   a slot (and the unit in it)
//   site:<front>                a Front's Site row
//   leader:<seat>               a player's Leader
import {
  baseView, cardList, discardPile, el, outcomeBanner, registerBoard, seatLabel, shownSeats, slotLabel, stat,
  titleCase, who,
} from "../matches/boards.js";

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
  return el("section", { class: `tf-player board-player seat-${p.seat}${view.to_act.includes(p.seat) ? " acting" : ""}`, "data-seat": p.seat },
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
  container.replaceChildren(el("div", { class: "board-tempofront game-board", "data-game": "tempofront" },
    header, outcomeBanner(ctx), timeline(ctx, view), chain, tfPlayer(ctx, far, view), fronts, tfPlayer(ctx, near, view)));
  keepMarkersOnTrack(container);
}

// ------------------------------------------------------------------ decisions

function targetPlace(target, seat) {
  if (typeof target !== "string") return null;
  const parts = target.split(".");
  if (parts.length === 3) return `slot:${target}`;
  if (parts.length === 2 && parts[1] === "leader") return `leader:${parts[0]}`;
  if (target === "leader") return `leader:${1 - seat}`;
  return null;
}

/** `{source, steps}` of one legal action: a card in hand or a unit acting, then the places. */
function parts(action, seat) {
  const card = typeof action.card === "string" ? action.card : null;
  const unit = action.front && action.row ? `slot:${seat}.${action.front}.${action.row}` : null;
  switch (action.kind) {
    case "deploy":
      return { source: `card:${card}`, steps: [unit, targetPlace(action.target, seat)].filter(Boolean) };
    case "site":
      return { source: `card:${card}`, steps: [`site:${action.front}`] };
    case "play":
    case "attach":
      return { source: `card:${card}`, steps: [targetPlace(action.target, seat)].filter(Boolean) };
    case "prepare":
      return { source: `card:${card}`, steps: [] };
    case "strike": {
      // A strike names the row it hits on its own Front (or the enemy Leader).
      const target = action.target === "leader" ? `leader:${1 - seat}` : `slot:${1 - seat}.${action.front}.${action.target}`;
      return { source: unit, steps: [target] };
    }
    case "shift":
      return { source: unit, steps: [`slot:${seat}.${action.to_front}.${action.to_row}`] };
    case "activate":
      return { source: unit, steps: [targetPlace(action.target, seat)].filter(Boolean) };
    default:
      // keep, mulligan, pass, leader, react, take: buttons.
      return { source: null, steps: [] };
  }
}

/** Words for a place key: "your left Vanguard", "the left Front's Site", "the enemy Leader". */
function placeWords(place, seat) {
  const [kind, rest] = place.split(":");
  if (kind === "site") return `the ${rest} Front's Site`;
  if (kind === "leader") return Number(rest) === seat ? "your Leader" : "the enemy Leader";
  if (kind === "slot") {
    const [owner, front, row] = rest.split(".");
    return `${Number(owner) === seat ? "your" : "the enemy"} ${front} ${titleCase(row)}`;
  }
  return place;
}

/** The board element a place key names, or null. */
function place(board, key) {
  const [kind, rest] = key.split(":");
  if (kind === "slot") {
    const [seat, front, row] = rest.split(".");
    return board.querySelector(`.front[data-front="${front}"] .row.seat-${seat}[data-row="${row}"]`);
  }
  if (kind === "site") return board.querySelector(`.front[data-front="${rest}"] .row[data-row="site"]`);
  if (kind === "leader") return board.querySelector(`.tf-player.seat-${rest} .leader`);
  return null;
}

registerBoard("tempofront", {
  render: renderTempoFront,
  parts,
  placeWords,
  place,
  verbs: {
    leader: "Use your Leader's ability", prepare: "Prepare", react: "React with", take: "Take", deploy: "Deploy",
    site: "Play", attach: "Attach", strike: "Strike", shift: "Shift", activate: "Activate",
  },
  preposition(action, index) {
    if (action.kind === "strike") return "at";
    return index === 0 && ["deploy", "shift", "site"].includes(action.kind) ? "to" : "on";
  },
  // Cards may be played from the Reserve too; scouted cards are taken by a button.
  handZones: [["Hand", "hand"], ["Reserve", "reserve"]],
});
