"""Reads of the live app: what a seat or a spectator is sent, the "live now" list, queues.

Everything a client receives about a game is built here from the engine's own views:
``state.view(seat)`` for a seat, ``state.view(None)`` for spectators, and events filtered
by ``Event.visible_to``. Nothing else of the state is ever put into a message.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from engine import games as engine_games
from engine.core import State
from live import engine_state
from live.models import LiveChallenge, LiveMatch, LiveSeat, QueueEntry


def _seat_name(row: LiveSeat) -> str:
    if row.user_id is not None and row.user is not None:
        return row.user.username
    return f"bot {row.bot}"


def players_json(rows: Sequence[LiveSeat]) -> list[dict[str, Any]]:
    """Every seat's public facts; ``present``: a bot, or a person who has connected or moved
    (never when: only whether)."""
    return [
        {"seat": r.seat, "name": _seat_name(r), "pilot": r.pilot, "deck": r.deck_version.deck.name,
         "timed_out": r.timed_out_at is not None, "resigned": r.resigned, "present": r.is_present}
        for r in rows
    ]


def clocks_json(rows: Sequence[LiveSeat], now: datetime) -> list[dict[str, Any]]:
    from live.services import remaining_ms

    return [{"seat": r.seat, "remaining_ms": remaining_ms(r, now), "running": r.running_since is not None,
             "timed_out": r.timed_out_at is not None} for r in rows]


def event_json(events, seat: int | None) -> list[dict[str, Any]]:
    """Events ``seat`` may see, as ``{"kind", "text"}`` (never their data)."""
    return [{"kind": e.kind, "text": e.text} for e in events if e.visible_to(seat)]


def view_payload(live: LiveMatch, rows: Sequence[LiveSeat], state: State, seat: int | None, *, events=(),
                 acting: int | None = None, index: int | None = None, now: datetime | None = None) -> dict[str, Any]:
    """The message a seat (or spectators, ``seat`` None) receives after a move.

    ``legal`` lists the seat's legal actions when it is a person's seat to act; bots and
    spectators get none. ``placement`` (else None) is, while that seat places (Conquest),
    what it may place at each of its Locations (``engine_state.placement_choices``).
    ``outcome`` is there once the match is over, with ``result`` (:func:`result_json`);
    a finished match whose series goes on also has ``next_url``, the next game's board.
    """
    now = now or timezone.now()
    to_act = list(state.to_act()) if state.outcome is None else []
    row = next((r for r in rows if r.seat == seat), None) if seat is not None else None
    may_act = row is not None and not row.is_bot and seat in to_act and not live.is_over
    payload: dict[str, Any] = {
        "type": "view",
        "match": live.match_id,
        "game": live.game,
        "index": len(live.log) if index is None else index,
        "seat": seat,
        "status": live.status,
        "to_act": to_act,
        "acting": acting,
        "view": state.view(seat),
        "legal": [a.to_json() for a in state.legal_actions(seat)] if may_act else [],
        # A placement's choices for every Location at once, from the engine (the seat's own).
        "placement": engine_state.placement_choices(state, seat) if may_act else None,
        "events": event_json(events, seat),
        "clocks": clocks_json(rows, now),
        "players": players_json(rows),
        "server_time": int(now.timestamp() * 1000),
        "outcome": live.outcome if live.is_over else None,
        "result": result_json(live, rows, seat) if live.is_over else None,
    }
    if live.is_over and live.next_match_id is not None:
        payload["next_url"] = next_url(live)
    return payload


def next_url(live: LiveMatch) -> str | None:
    """The board of the next game of the series, once it is linked (``live_link_next``)."""
    return None if live.next_match_id is None else f"/live/{live.next_match_id}/"


ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}
#: How the concession reason of a forfeit is said ("alice forfeited: did not show up").
FORFEIT_WORDS = {"no-show": "did not show up"}


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def ending_words(live: LiveMatch, rows: Sequence[LiveSeat]) -> str | None:
    """The end of a match the players did not play out, in words for everyone: seats that
    forfeited (``alice forfeited: did not show up``), or a game stopped at a round's time
    limit (``Decided at the round's time limit: alice 1st (12 Conquest), bob 2nd (9
    Conquest)``, or ``Drawn at the round's time limit``). None for any other end."""
    outcome = live.outcome or {}
    by_seat = {r.seat: r for r in rows}
    if outcome.get("forfeited"):
        why = str((outcome.get("detail") or {}).get("reason") or "no-show")
        names = [_seat_name(by_seat[s]) for s in outcome["forfeited"] if s in by_seat]
        return f"{_names(names)} forfeited: {FORFEIT_WORDS.get(why, why)}"
    if outcome.get("reason") != "adjudicated":
        return None
    places = list(outcome.get("places") or [])
    if len(set(places)) <= 1:
        return "Drawn at the round's time limit"
    label = engine_games[live.game].standings_score_label if live.game in engine_games else None
    scores = list(outcome.get("scores") or [])
    said = []
    for seat in sorted(range(len(places)), key=lambda s: (places[s], s)):
        place = places[seat]
        joint = "joint " if places.count(place) > 1 else ""
        score = scores[seat] if seat < len(scores) else None
        extra = f" ({score} {label})" if label and isinstance(score, int) and not isinstance(score, bool) else ""
        said.append(f"{_seat_name(by_seat[seat])} {joint}{ORDINALS.get(place, f'{place}th')}{extra}")
    return "Decided at the round's time limit: " + ", ".join(said)


def result_json(live: LiveMatch, rows: Sequence[LiveSeat], seat: int | None) -> dict[str, Any]:
    """What the end of the match means for ``seat`` beyond the outcome (public data only):
    its rating change when the match was rated (``None`` until it is recorded, or when it
    is not rated), and how to ask for a rematch with the same deck (against the same bot,
    or a challenge to the one human opponent). Spectators get neither.

    For everyone, only when there is one: ``ending``, a match not played out said in words
    (:func:`ending_words`: a forfeit, an adjudication), and ``next_url``, the next game of
    the series."""
    extra: dict[str, Any] = {}
    ending = ending_words(live, rows)
    if ending is not None:
        extra["ending"] = ending
    if live.next_match_id is not None:
        extra["next_url"] = next_url(live)
    row = next((r for r in rows if r.seat == seat), None) if seat is not None else None
    if row is None or row.user_id is None:
        return {"rating": None, "rematch": None, **extra}
    from ladder.models import Pool, RatingChange

    change = (RatingChange.objects.filter(match_id=live.match_id, rating__player_id=row.user_id,
                                          rating__pool=Pool.HUMANS).first())
    rating = None if change is None else {
        "before": round(change.ordinal_before, 1), "after": round(change.ordinal, 1),
        "change": round(change.ordinal - change.ordinal_before, 1)}
    others = [r for r in rows if r.seat != row.seat]
    rematch: dict[str, Any] | None = {"deck": row.deck_version.deck_id, "seats": len(rows)}
    if others and all(r.user_id is None for r in others) and len({r.bot for r in others}) == 1:
        rematch["bot"] = others[0].bot
    elif len(others) == 1 and others[0].user_id is not None:
        rematch["username"] = _seat_name(others[0])
    else:
        rematch = None
    return {"rating": rating, "rematch": rematch, **extra}


def live_get(*, match_id: int) -> LiveMatch:
    """The live match; raises ``LiveMatch.DoesNotExist``."""
    return LiveMatch.objects.select_related("match").get(match_id=match_id)


def live_seats(*, live: LiveMatch) -> list[LiveSeat]:
    return list(live.seats.select_related("user", "deck_version__deck").order_by("seat"))


def seat_of(*, rows: Sequence[LiveSeat], user) -> int | None:
    """The seat ``user`` plays in, or None (a spectator)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return next((r.seat for r in rows if r.user_id == user.pk), None)


def opening_payload(*, match_id: int, seat: int | None, now: datetime | None = None,
                    live: LiveMatch | None = None, rows: Sequence[LiveSeat] | None = None) -> dict[str, Any]:
    """What a socket receives on connect: the seat's (or the public) view as it stands,
    with every event so far that the seat may see (``events``), so a reload resumes the
    same board and log. Spectators of a delayed match see the position as it was
    ``spectator_delay`` seconds ago. ``live`` and ``rows``: the match and its seats when
    the caller has just read them (:func:`live_get`, :func:`live_seats`)."""
    now = now or timezone.now()
    if live is None:
        live = live_get(match_id=match_id)
    if rows is None:
        rows = live_seats(live=live)
    upto = None
    if seat is None and live.spectator_delay and not live.is_over:
        cutoff = int((now - timedelta(seconds=live.spectator_delay)).timestamp() * 1000)
        upto = sum(1 for entry in live.log if entry[2] <= cutoff)
    state, events = engine_state.history(live, upto=upto)
    payload = view_payload(live, rows, state, seat, index=len(live.log) if upto is None else upto, now=now)
    payload["events"] = event_json((e for _, e in events), seat)
    payload["type"] = "view"
    payload["opening"] = True
    if upto is not None:
        payload["status"] = LiveMatch.Status.ACTIVE
        payload["outcome"] = None
    return payload


def live_now(limit: int = 20) -> QuerySet[LiveMatch]:
    """Live matches being played now, newest first, with their seats (for ``/live/`` and
    the home page)."""
    return (LiveMatch.objects.filter(status=LiveMatch.Status.ACTIVE)
            .select_related("match").prefetch_related("seats__user", "seats__deck_version__deck")
            .order_by("-created")[:limit])


def recent_finished(limit: int = 10) -> QuerySet[LiveMatch]:
    return (LiveMatch.objects.filter(status=LiveMatch.Status.DONE)
            .select_related("match").prefetch_related("seats__user", "seats__deck_version__deck")
            .order_by("-finished")[:limit])


def queue_status(*, user) -> dict[str, Any]:
    """Where ``user`` stands in matchmaking: waiting (game, seats, since), matched (the
    match to open, only while it is being played), or not queued.

    The entry of a finished match is not a place in the queue: the player is idle (the
    entry itself is deleted by ``services.live_queue_release``; until then it is ignored
    here, so no restart or missed clean-up can send a player back to a finished match)."""
    entry = (QueueEntry.objects.select_related("queue")
             .filter(Q(match__isnull=True) | Q(match__live__status=LiveMatch.Status.ACTIVE), user=user).first())
    if entry is None:
        return {"state": "idle"}
    if entry.match_id is not None:
        return {"state": "matched", "match": entry.match_id, "url": f"/live/{entry.match_id}/"}
    waited = (timezone.now() - entry.joined).total_seconds()
    return {"state": "waiting", "game": entry.queue.game, "seats": entry.queue.seats, "waited_seconds": round(waited)}


#: At most this many challenges in each list of :func:`challenges_for` (newest first): a
#: player named by many others still gets a bounded answer.
CHALLENGES_LISTED = 20
#: How long the challenger is told that a challenge was declined.
ANSWER_SHOWN = timedelta(minutes=10)


def challenges_for(*, user, limit: int = CHALLENGES_LISTED) -> dict[str, list[LiveChallenge]]:
    """Pending challenges made to and by ``user`` (newest first), and those of their
    challenges answered lately: accepted ones whose match is still being played (the
    lobby opens it), declined ones (the lobby says so). Each list holds at most ``limit``."""
    now = timezone.now()
    pending = LiveChallenge.objects.filter(status=LiveChallenge.Status.PENDING, expires__gt=now)
    recent = LiveChallenge.objects.filter(challenger=user, created__gt=now - ANSWER_SHOWN)
    related = ("challenger", "challenged", "deck_version__deck")
    return {
        "received": list(pending.filter(challenged=user).select_related(*related)[:limit]),
        "sent": list(pending.filter(challenger=user).select_related(*related)[:limit]),
        # Only a match still being played: the lobby sends the challenger to it, and a
        # finished one must not pull them back.
        "accepted": list(recent.filter(status=LiveChallenge.Status.ACCEPTED,
                                       match__live__status=LiveMatch.Status.ACTIVE)
                         .select_related(*related)[:limit]),
        "declined": list(recent.filter(status=LiveChallenge.Status.DECLINED).select_related(*related)[:limit]),
    }


def challenges_waiting(*, user) -> dict[str, Any]:
    """The pending challenges made to ``user``: how many, and the newest. Asked on every
    page a signed-in player opens (the site-wide notice), so at most two small queries on
    the ``livechallenge_waiting`` index."""
    pending = LiveChallenge.objects.filter(challenged=user, status=LiveChallenge.Status.PENDING,
                                           expires__gt=timezone.now())
    latest = pending.select_related("challenger", "challenged", "deck_version__deck").order_by("-created").first()
    return {"count": pending.count() if latest is not None else 0, "latest": latest}


def active_match_of(*, user) -> LiveMatch | None:
    """The live match ``user`` is seated in and that is still being played, if any."""
    return (LiveMatch.objects.filter(status=LiveMatch.Status.ACTIVE, seats__user=user)
            .order_by("-created").first())
