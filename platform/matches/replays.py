"""Frames of a replay, reconstructed by the engine from the action log.

The replay viewer draws each step of a game from the JSON this module builds: for each
action index (``-1`` is the position before the first action) the events it produced and
the views of the resulting state, one per seat plus the spectator's. Nothing here is
stored: frames are recomputed from (seed, decks, params, actions) by the engine, so they
can never drift from what the engine says the log means.

Frames come in pages (:func:`frames_page`): *position* ``p`` is the state after ``p``
actions (0 is the opening), and a page is a run of consecutive positions. Building a page
applies the log up to its first position (cheap: no views) and then computes views for
the page's positions only, so the work per page is bounded by the page size.

Public frames (``all_seats=False``, a match still being played) carry only the public
view, public events and the public form of each action (:func:`public_action_json`): a
face-down pick shows what the other seats see of it, never the card.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from engine import games
from engine.core import Action, Event, Replay, State, replay_states


def event_json(event: Event) -> dict[str, Any]:
    """An event as the viewer shows it: kind, text and, for a private event, its seat."""
    out: dict[str, Any] = {"kind": event.kind, "text": event.text}
    if event.private_to is not None:
        out["private_to"] = event.private_to
    return out


def tiebreak_events(records: list[dict[str, Any]], *, number: str = "number") -> list[dict[str, Any]]:
    """Match the Twos records (``engine.tiebreaks.match_the_twos``) as log lines; ``number``
    is what the game calls the number two cards match on (``Game.twos_label``)."""
    lines: list[dict[str, Any]] = []
    for record in records:
        seats = ", ".join(f"Seat {s}" for s in record["seats"])
        lines.append({"kind": "match_the_twos", "text": f"Match the Twos breaks the tie between {seats}"})
        for round_ in record["rounds"]:
            for reveal in round_["reveals"]:
                matched = reveal["matched_cq"]
                outcome = f"a match at {number} {matched}" if matched is not None else "no match"
                lines.append({
                    "kind": "match_the_twos",
                    "text": f"Round {round_['round']}: Seat {reveal['seat']} reveals "
                            f"{reveal['cards'][0]} and {reveal['cards'][1]}: {outcome}",
                })
            if round_["winner"] is not None:
                lines.append({"kind": "match_the_twos",
                              "text": f"Round {round_['round']}: Seat {round_['winner']} takes the higher place"})
        if record["shared"]:
            shared = ", ".join(f"Seat {s}" for s in record["shared"])
            lines.append({"kind": "match_the_twos", "text": f"The piles ran out: {shared} share the place"})
    return lines


def _twos_label(game: str) -> str:
    return games[game].twos_label if game in games else "number"


_ILLEGAL = re.compile(r"chose an illegal action .*? at action")


def observer_for(game: str) -> Callable[[int, Action], object] | None:
    """What the other seats and spectators see of an action in ``game``: the game's own
    answer (``Game.observed_action``; a game that does not say shows no hidden action's
    content), or None for a game the registry does not know."""
    return games[game].observed_action if game in games else None


def _observed_json(value: object) -> Any:
    if isinstance(value, Action):
        return value.to_json()
    if isinstance(value, (list, tuple)):
        return [_observed_json(v) for v in value]
    return value


def public_action_json(action: Action, seat: int, observe: Callable[[int, Action], object] | None) -> dict[str, Any]:
    """``action`` as a spectator sees it: the action itself when the game says it is
    public, else ``{"kind", "hidden": true, "observed"}`` with what the other seats see
    (``Game.observed_action``, e.g. ``["place", <location>, <a unit or not>]``). Without
    ``observe`` only the action's kind shows. A concession's reason keeps no illegal
    action a bot tried (it may name a card in hand)."""
    seen = observe(seat, action) if observe is not None else (action.kind,)
    if seen != action:
        return {"kind": action.kind, "hidden": True, "observed": _observed_json(seen)}
    out = action.to_json()
    if isinstance(out.get("reason"), str):
        out["reason"] = _ILLEGAL.sub("chose an illegal action at action", out["reason"])
    return out


def frame_json(
    *, index: int, seat: int | None, action: Action | None, state: State, events: list[Event], all_seats: bool,
    observe: Callable[[int, Action], object] | None = None,
) -> dict[str, Any]:
    """One frame (see :func:`replay_frames`); without ``all_seats`` only what is public."""
    views: dict[str, Any] = {"public": state.view(None)}
    if all_seats:
        for s in range(state.num_seats):
            views[str(s)] = state.view(s)
    if action is None:
        action_json = None
    elif all_seats:
        action_json = action.to_json()
    else:
        action_json = public_action_json(action, seat, observe)
    return {
        "index": index,
        "seat": seat,
        "action": action_json,
        "events": [event_json(e) for e in events if all_seats or e.private_to is None],
        "views": views,
    }


def frames_page(
    replay: Replay, *, start: int, stop: int, tiebreak: list[dict[str, Any]] | None = None, all_seats: bool = True,
) -> list[dict[str, Any]]:
    """The frames of positions ``start`` to ``stop - 1`` (clipped to the game).

    Position ``p`` is the frame of action index ``p - 1``. The log is applied from the
    opening without views up to ``start``; views are built for the page only. The Match
    the Twos reveals go into the last position's events, as in :func:`replay_frames`.
    """

    total = len(replay.actions) + 1
    start, stop = max(0, start), min(total, stop)
    observe = None if all_seats else observer_for(replay.game)
    state = games[replay.game].new_match(replay.decks, replay.seed, replay.params)
    frames: list[dict[str, Any]] = []
    if start == 0 and stop > 0:
        frames.append(frame_json(index=-1, seat=None, action=None, state=state,
                                 events=list(state.opening_events), all_seats=all_seats))
    for position in range(1, stop):
        seat, action = replay.actions[position - 1]
        events = state.apply(seat, action)
        if position >= start:
            frames.append(frame_json(index=position - 1, seat=seat, action=action, state=state, events=events,
                                     all_seats=all_seats, observe=observe))
    if tiebreak and frames and stop == total:
        frames[-1]["events"].extend(tiebreak_events(tiebreak, number=_twos_label(replay.game)))
    return frames


def replay_frames(
    replay: Replay, *, tiebreak: list[dict[str, Any]] | None = None, all_seats: bool = True
) -> list[dict[str, Any]]:
    """One frame per position of the game, from the start to the end.

    Each frame is ``{"index", "seat", "action", "events", "views"}``: ``index`` -1 is the
    opening (with the events of setting the game up), then
    0, 1, ... for each action, with the acting ``seat`` and the ``action`` JSON. ``views``
    maps ``"public"`` to ``view(None)`` and ``"0"``, ``"1"``, ... to each seat's
    ``view(seat)`` (the seats' views only with ``all_seats``: a replay shows every seat's
    cards once its match is over; without it each ``action`` is its public form). The
    Match the Twos reveals of a tie broken after the game (``tiebreak``) are added to the
    last frame's events. Raises whatever the engine raises for a log that does not replay
    (``IllegalAction``): verify the replay first.
    """
    frames: list[dict[str, Any]] = []
    observe = None if all_seats else observer_for(replay.game)
    for index, state, events in replay_states(replay):
        seat, action = replay.actions[index] if index >= 0 else (None, None)
        frames.append(frame_json(index=index, seat=seat, action=action, state=state, events=events,
                                 all_seats=all_seats, observe=observe))
    if tiebreak and frames:
        frames[-1]["events"].extend(tiebreak_events(tiebreak, number=_twos_label(replay.game)))
    return frames
