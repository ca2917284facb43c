// How the board offers the server's legal actions: each action is cut into what the
// player picks first (its source: a card in hand, one of their units, or nothing) and the
// places they then click on the board, one after the other. Nothing here decides what is
// legal: the board only ever offers, and sends, an action exactly as the server listed it
// in `legal`.
//
// What a game's actions are made of is the game's own business: its board (registered
// with boards.js from its package) cuts an action into `{source, steps}` (`parts`), names
// its places (`placeWords`) and words its verbs. A game whose board says nothing offers
// every action as a button. A source is `card:<id>` (a card in hand) or one of the board's
// place keys (a unit acting).

import { boardOf, titleCase } from "../matches/boards.js";

/** The card id an action is about, when it has one. */
export const cardOf = (action) => (typeof action.card === "string" ? action.card : null);

/** Verbs every game shares; a game's board adds its own (`verbs`). */
const VERBS = { keep: "Keep this hand", mulligan: "Mulligan", pass: "Pass", play: "Play" };

/** Whether a source is a place on the board (a unit acting) rather than a card in hand. */
export const onBoard = (source) => Boolean(source) && !source.startsWith("card:");

/** The decisions of `game`: `partsOf`, `placeWords` and `describe`, each asking the game's
 * board when it is called (the game's script may register after this module loads). */
export function decisionsOf(game) {
  const board = () => boardOf(game) ?? {};

  /** `{source, steps}` of one legal action of `seat`; an action with no step is a button. */
  const partsOf = (action, seat) => board().parts?.(action, seat) ?? { source: null, steps: [] };

  /** Words for a place key: "your left Vanguard", "Location 2". */
  const placeWords = (place, seat) => board().placeWords?.(place, seat) ?? place;

  /** A sentence for an action: "Deploy Militia Recruit to your left Vanguard". */
  function describe(action, seat, nameOf) {
    const own = board().describe?.(action, seat, nameOf);
    if (own) return own;
    const card = cardOf(action);
    const { source, steps } = partsOf(action, seat);
    const verb = board().verbs?.[action.kind] ?? VERBS[action.kind] ?? titleCase(action.kind.replaceAll("_", " "));
    const subject = card && card !== "empty" ? nameOf(card)
      : onBoard(source) ? `the unit on ${placeWords(source, seat)}` : "";
    const where = steps.map((place, index) => `${board().preposition?.(action, index) ?? "on"} ${placeWords(place, seat)}`);
    return [verb, subject, ...where].filter(Boolean).join(" ");
  }

  return { partsOf, placeWords, describe };
}
