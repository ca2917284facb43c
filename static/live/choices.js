// How the board offers the server's legal actions: each action is cut into what the
// player picks first (its source: a card in hand, one of their units, or nothing) and the
// places they then click on the board, one after the other (a slot, a Front's Site, a
// Leader, a Location). Nothing here decides what is legal: the board only ever offers, and
// sends, an action exactly as the server listed it in `legal`.
//
// Place keys name the board's elements (board.js marks them with data-place):
//   slot:<seat>.<front>.<row>   a TempoFront slot (and the unit in it)
//   site:<front>                a Front's Site row
//   leader:<seat>               a player's Leader
//   loc:<n>                     a Conquest Location

/** The card id an action is about, when it has one. */
export const cardOf = (action) => (typeof action.card === "string" ? action.card : null);

function targetPlace(target, seat) {
  if (typeof target !== "string") return null;
  const parts = target.split(".");
  if (parts.length === 3) return `slot:${target}`;
  if (parts.length === 2 && parts[1] === "leader") return `leader:${parts[0]}`;
  if (target === "leader") return `leader:${1 - seat}`;
  return null;
}

/**
 * `{source, steps}` of one legal action of `seat`: `source` is `card:<id>`,
 * `slot:<seat>.<front>.<row>` (a unit acting) or null; `steps` are the place keys clicked
 * after it, in order. An action with no step is a button.
 */
export function partsOf(action, seat) {
  const card = cardOf(action);
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
    case "place":
      return { source: card && card !== "empty" ? `card:${card}` : null, steps: [`loc:${action.location}`] };
    default:
      // keep, mulligan, pass, leader, react, respond, take, play_celestial: buttons.
      return { source: null, steps: [] };
  }
}

const VERBS = {
  keep: "Keep this hand", mulligan: "Mulligan", pass: "Pass", leader: "Use your Leader's ability",
  prepare: "Prepare", react: "React with", respond: "Respond with", take: "Take", play: "Play",
  play_celestial: "Play your Celestial", deploy: "Deploy", site: "Play", attach: "Attach", strike: "Strike",
  shift: "Shift", activate: "Activate", place: "Place",
};
const titleCase = (text) => String(text ?? "").replace(/^\w/, (c) => c.toUpperCase());

/** Words for a place key: "your left Vanguard", "Location 2", "the enemy Leader". */
export function placeWords(place, seat) {
  const [kind, rest] = place.split(":");
  if (kind === "loc") return `Location ${rest}`;
  if (kind === "site") return `the ${rest} Front's Site`;
  if (kind === "leader") return Number(rest) === seat ? "your Leader" : "the enemy Leader";
  if (kind === "slot") {
    const [owner, front, row] = rest.split(".");
    return `${Number(owner) === seat ? "your" : "the enemy"} ${front} ${titleCase(row)}`;
  }
  return place;
}

/** A sentence for an action: "Deploy Militia Recruit to your left Vanguard". */
export function describe(action, seat, nameOf) {
  const card = cardOf(action);
  const { source, steps } = partsOf(action, seat);
  const verb = VERBS[action.kind] ?? titleCase(action.kind.replaceAll("_", " "));
  const subject = card && card !== "empty" ? nameOf(card)
    : source?.startsWith("slot:") ? `the unit on ${placeWords(source, seat)}` : "";
  if (action.kind === "place" && card === "empty") return `Leave Location ${action.location} empty`;
  const where = steps.map((place, index) => {
    const words = placeWords(place, seat);
    if (action.kind === "strike") return `at ${words}`;
    if (index === 0 && ["deploy", "shift", "site", "place"].includes(action.kind)) return `to ${words}`;
    return `on ${words}`;
  });
  return [verb, subject, ...where].filter(Boolean).join(" ");
}
