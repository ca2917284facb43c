"""Frames of a replay, reconstructed by the engine from the action log.

The replay viewer draws each step of a game from the JSON this module builds: for each
action index (``-1`` is the position before the first action) the events it produced and
the views of the resulting state, one per seat plus the spectator's. Nothing here is
stored: frames are recomputed from (seed, decks, params, actions) with
:func:`engine.core.replay_states` every time, so they can never drift from what the
engine says the log means.
"""

from __future__ import annotations

from typing import Any

from engine.core import Event, Replay, replay_states


def event_json(event: Event) -> dict[str, Any]:
    """An event as the viewer shows it: kind, text and, for a private event, its seat."""
    out: dict[str, Any] = {"kind": event.kind, "text": event.text}
    if event.private_to is not None:
        out["private_to"] = event.private_to
    return out


def tiebreak_events(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Match the Twos records (``engine.conquest.match_the_twos``) as log lines."""
    lines: list[dict[str, Any]] = []
    for record in records:
        seats = ", ".join(f"Seat {s}" for s in record["seats"])
        lines.append({"kind": "match_the_twos", "text": f"Match the Twos breaks the tie between {seats}"})
        for round_ in record["rounds"]:
            for reveal in round_["reveals"]:
                matched = reveal["matched_cq"]
                outcome = f"a match at CQ {matched}" if matched is not None else "no match"
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


def replay_frames(
    replay: Replay, *, tiebreak: list[dict[str, Any]] | None = None, all_seats: bool = True
) -> list[dict[str, Any]]:
    """One frame per position of the game, from the start to the end.

    Each frame is ``{"index", "seat", "action", "events", "views"}``: ``index`` -1 is the
    opening (with the events of setting the game up), then
    0, 1, ... for each action, with the acting ``seat`` and the ``action`` JSON. ``views``
    maps ``"public"`` to ``view(None)`` and ``"0"``, ``"1"``, ... to each seat's
    ``view(seat)`` (the seats' views only with ``all_seats``: a replay shows every seat's
    cards once its match is over). The Match the Twos reveals of a tie broken after the game (``tiebreak``)
    are added to the last frame's events. Raises whatever the engine raises for a log that
    does not replay (``IllegalAction``): verify the replay first.
    """
    frames: list[dict[str, Any]] = []
    for index, state, events in replay_states(replay):
        seat, action = replay.actions[index] if index >= 0 else (None, None)
        views: dict[str, Any] = {"public": state.view(None)}
        if all_seats:
            for s in range(state.num_seats):
                views[str(s)] = state.view(s)
        frames.append({
            "index": index,
            "seat": seat,
            "action": action.to_json() if action is not None else None,
            "events": [event_json(e) for e in events if all_seats or e.private_to is None],
            "views": views,
        })
    if tiebreak and frames:
        frames[-1]["events"].extend(tiebreak_events(tiebreak))
    return frames
