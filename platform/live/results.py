"""How a finished live match is recorded: its final outcome, its replay, its result.

:func:`final_outcome` applies the platform's own rankings to the engine's outcome (seats
out of time, seats that forfeited); :func:`finish` writes the end on the locked live match
and records the game on its match (``matches.services.match_record_live_game``: result and
ratings). Whatever ends a match ends here: its last move (``live.moves``), a forfeit, a
time-out or an adjudication (``live.endings``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.core import Outcome, State
from live import engine_state
from live.models import LiveMatch, LiveSeat
from matches import services as match_services


def final_outcome(outcome: Outcome, rows: Sequence[LiveSeat], *, forfeited: Sequence[int] = ()) -> dict[str, Any]:
    """The engine's (or the adjudicated) outcome with the platform's own rankings applied:
    seats that ran out of time (and were played by the random bot since) rank below the
    others, the earliest time-out lowest; seats that forfeited (``forfeited``, did not show
    up) rank last of all and share the last place, which is the number of seats (so two
    seats that both forfeit a two-seat match both lose: places ``[2, 2]``). The other seats
    keep their order among themselves, ties shared.

    With either, ``engine_places`` keeps the outcome's own places, and ``timed_out`` lists
    the late seats, earliest first, ``forfeited`` the seats that forfeited, each only when
    there are some (also in ``detail``, so that the game's stored outcome says why its
    places differ from its replay's)."""
    out = outcome.to_json()
    gone = list(dict.fromkeys(int(s) for s in forfeited))
    timed_out = sorted((r for r in rows if r.timed_out_at is not None and r.seat not in gone),
                       key=lambda r: (r.timed_out_at, r.seat))
    if not timed_out and not gone:
        return out
    count = len(outcome.places)
    late = {r.seat for r in timed_out}
    others = sorted((s for s in range(count) if s not in late and s not in gone), key=lambda s: outcome.places[s])
    places = [0] * count
    for rank, s in enumerate(others):
        if rank and outcome.places[s] == outcome.places[others[rank - 1]]:
            places[s] = places[others[rank - 1]]
        else:
            places[s] = rank + 1
    for offset, row in enumerate(reversed(timed_out)):
        places[row.seat] = len(others) + offset + 1
    for s in gone:
        places[s] = count
    marks: dict[str, Any] = {}
    if timed_out:
        marks["timed_out"] = [r.seat for r in timed_out]
    if gone:
        marks["forfeited"] = gone
    ranked = Outcome(places=tuple(places), scores=outcome.scores, reason=outcome.reason,
                     detail={**outcome.detail, **marks, "engine_places": list(outcome.places)})
    return {**ranked.to_json(), "engine_places": list(outcome.places), **marks}


def finish(live: LiveMatch, rows: list[LiveSeat], state: State, now, *, outcome: Outcome | None = None,
           forfeited: Sequence[int] = ()) -> None:
    """Record the end on the locked ``live`` and its match: outcome, replay, result.

    The match's game, result and ratings (through ``match_finished``) follow the final
    outcome (:func:`final_outcome`: seats out of time or forfeited rank last), while the
    replay keeps the engine's own outcome, so that it still verifies. ``outcome``, when
    given, replaces the engine's (an adjudicated game: the engine's is then None, and so
    is the replay's)."""
    live.status = LiveMatch.Status.DONE
    live.finished = now
    live.next_deadline = None
    for row in rows:
        row.running_since = None
    final = final_outcome(outcome or state.outcome, rows, forfeited=forfeited)
    live.outcome = final
    replay = engine_state.replay_of(live, state.outcome)
    live.replay = replay.to_json()
    ranked = Outcome.from_json(final) if outcome is not None or "engine_places" in final else None
    match_services.match_record_live_game(match_id=live.match_id, replay=replay,
                                          seat_order=list(range(len(rows))), outcome=ranked)
