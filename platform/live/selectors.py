"""Reads of the live app: what a seat or a spectator is sent, the "live now" list, queues.

Everything a client receives about a game is built here from the engine's own views:
``state.view(seat)`` for a seat, ``state.view(None)`` for spectators, and events filtered
by ``Event.visible_to``. Nothing else of the state is ever put into a message.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from decks.permissions import deck_visibility
from engine import games as engine_games
from engine.core import Event, State
from ladder.models import Pool, RatingChange
from live import engine_state, texts
from live.clock import remaining_ms
from live.models import LiveChallenge, LiveMatch, LiveSeat, QueueEntry


def _seat_name(row: LiveSeat) -> str:
    if row.user_id is not None and row.user is not None:
        return row.user.username
    return f"bot {row.bot}"


#: Seconds a process keeps which decks are hidden (``public_deck_names``). A deck entered in
#: an event while one of its live matches runs is named by that match's messages for at
#: most this long after the entry (its name was public until then); a hidden deck stays
#: hidden at most this long after its event publishes.
HIDDEN_DECKS_SECONDS = 10.0
#: The process's anonymous deck visibility and when it expires (one entry, "public").
_hidden_decks: dict[str, tuple[float, Any]] = {}


def public_deck_names(deck_versions: Sequence) -> list[str]:
    """The decks' names as every watcher may see them: a deck's hidden label while it is
    entered in an event that has not published its decklists (``decks.permissions``).
    Messages to a match's group are the same for everyone, so they name decks as to an
    anonymous visitor. Which decks are hidden is read in one query (every entry of the
    events still withholding their decklists) at most every ``HIDDEN_DECKS_SECONDS`` per
    process: a move's messages, and the hundreds of boards a live event's round opens at
    once, cost none."""
    now = time.monotonic()
    kept = _hidden_decks.get("public")
    if kept is None or kept[0] < now:
        visibility = deck_visibility(None)
        visibility.hidden_ids()  # read now, once for the whole period
        kept = _hidden_decks["public"] = (now + HIDDEN_DECKS_SECONDS, visibility)
    visibility = kept[1]
    return [visibility.label(v.deck_id) or v.deck.name for v in deck_versions]


def forget_hidden_decks() -> None:
    """Read which decks are hidden again at the next use (tests start each with none kept)."""
    _hidden_decks.clear()


def hidden_decks_changed(**_: Any) -> None:
    """An event's entries or settings changed in this process: read which decks are hidden
    again at once, and again once the change commits (a read in between, from another
    thread, still saw the rows before it). Connected to their saves by the tournaments app;
    other processes see the change within ``HIDDEN_DECKS_SECONDS``."""
    _hidden_decks.clear()
    transaction.on_commit(_hidden_decks.clear)


def public_deck_name(deck_version) -> str:
    """One deck's :func:`public_deck_names`."""
    return public_deck_names([deck_version])[0]


def players_json(rows: Sequence[LiveSeat], *, as_of: datetime | None = None) -> list[dict[str, Any]]:
    """Every seat's public facts; ``present``: a bot, or a person who has connected or moved
    (never when: only whether). ``as_of``: as they stood then (a running match's public
    moment, :func:`public_cutoff`): a later arrival or time-out is not told yet."""
    decks = public_deck_names([r.deck_version for r in rows])
    return [
        {"seat": r.seat, "name": _seat_name(r), "pilot": r.pilot, "deck": deck,
         "timed_out": r.timed_out_at is not None and (as_of is None or r.timed_out_at <= as_of),
         "resigned": r.resigned,
         "present": bool(r.bot) or (r.connected_at is not None and (as_of is None or r.connected_at <= as_of))}
        for r, deck in zip(rows, decks, strict=True)
    ]


def clocks_json(rows: Sequence[LiveSeat], now: datetime) -> list[dict[str, Any]]:
    return [{"seat": r.seat, "remaining_ms": remaining_ms(r, now), "running": r.running_since is not None,
             "timed_out": r.timed_out_at is not None} for r in rows]


def event_json(events, seat: int | None, rows: Sequence[LiveSeat] = ()) -> list[dict[str, Any]]:
    """Events ``seat`` may see, as ``{"kind", "text"}`` (never their data), in the words of
    ``live.texts``: "you" for the seat, the players' names (from ``rows``) for the others."""
    return texts.events_for(events, seat, {r.seat: _seat_name(r) for r in rows})


def view_payload(live: LiveMatch, rows: Sequence[LiveSeat], state: State, seat: int | None, *, events=(),
                 acting: int | None = None, index: int | None = None, now: datetime | None = None) -> dict[str, Any]:
    """The message a seat (or spectators, ``seat`` None) receives after a move.

    ``legal`` lists the seat's legal actions when it is a person's seat to act; bots and
    spectators get none. ``placement`` (else None) is, while that seat makes a decision of
    several actions (a placement of one card per Location), what it may choose at each step
    (``engine_state.placement_choices``, from the game's ``decision_steps``).
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
        # How many actions the seat has taken: a program acting fast waits for the view that
        # counts its last action before it acts again (docs/bots-api.md).
        "acted": sum(1 for entry in live.log if entry[0] == seat) if seat is not None else None,
        "view": state.view(seat),
        "legal": [a.to_json() for a in state.legal_actions(seat)] if may_act else [],
        # A placement's choices for every Location at once, from the engine (the seat's own).
        "placement": engine_state.placement_choices(state, seat) if may_act else None,
        "events": event_json(events, seat, rows),
        "clocks": clocks_json(rows, now),
        "players": players_json(rows),
        "server_time": int(now.timestamp() * 1000),
        "outcome": live.outcome if live.is_over else None,
        "result": result_json(live, rows, seat) if live.is_over else None,
    }
    if live.is_over:
        # A game that clears its board at the end says what stood there.
        payload["final_board"] = texts.final_board(events)
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
    limit (``Decided at the round's time limit: alice 1st (12 <score label>), bob 2nd (9
    <score label>)``, the game's ``standings_score_label``; or ``Drawn at the round's time
    limit``). None for any other end."""
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
    change = (RatingChange.objects.filter(match_id=live.match_id, rating__player_id=row.user_id,
                                          rating__pool=Pool.HUMANS).first())
    rating = None
    if change is not None:
        # The difference of the two numbers shown, so that "+2.8 (3.4 → 6.2)" adds up.
        before, after = round(change.ordinal_before, 1), round(change.ordinal, 1)
        rating = {"before": before, "after": after, "change": round(after - before, 1)}
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
    cutoff = public_cutoff(live, now) if seat is None else None
    if cutoff is None:
        state, events = engine_state.history(live)
        return {**view_payload(live, rows, state, seat, index=len(live.log), now=now),
                "events": event_json((e for _, e in events), seat, rows), "type": "view", "opening": True,
                "final_board": texts.final_board(e for _, e in events) if live.is_over else None}
    # A spectator of a delayed match: the board, clocks and arrivals as they stood then.
    state, events, upto, clocks = public_history(live, rows, cutoff)
    payload = view_payload(live, rows, state, seat, index=upto, now=now)
    payload.update(events=event_json((e for _, e in events), seat, rows), type="view", opening=True,
                   status=LiveMatch.Status.ACTIVE, outcome=None, to_act=list(state.to_act()) if state.outcome is None
                   else [], clocks=clocks, players=players_json(rows, as_of=cutoff))
    return payload


def live_now(limit: int = 20, *, now: datetime | None = None) -> list[LiveMatch]:
    """Live matches being played now, newest first, with their seats (for ``/live/``, the
    home page and ``/api/live/now/``). Each carries what anyone may know of it, as its
    spectators see it (:func:`public_progress`): ``public_actions``, the actions played
    by its public moment, and ``public_as_of``, that moment (None: no delay)."""
    now = now or timezone.now()
    found = list(LiveMatch.objects.filter(status=LiveMatch.Status.ACTIVE)
                 .select_related("match").prefetch_related("seats__user", "seats__deck_version__deck")
                 .order_by("-created")[:limit])
    for live in found:
        live.public_as_of = public_cutoff(live, now)
        live.public_actions = public_length(live, live.public_as_of)
    return found


# --------------------------------------------------------------------------- the spectator delay

# Anything anyone but the players may read about a running match (its board, its action
# count, whose turn it is, its clocks, who has arrived or run out of time) is told as it
# stood ``spectator_delay`` seconds ago, on the socket, the pages and the API alike: a count
# or a clock read in real time would tell a player's opponent, watching from another tab,
# what the delay hides. A finished match hides nothing.


def public_cutoff(live: LiveMatch, now: datetime | None = None) -> datetime | None:
    """The moment up to which anyone but the players sees running match ``live``: ``now``
    less its spectator delay. None when it has no delay or is over (all is public)."""
    if not live.spectator_delay or live.is_over:
        return None
    return (now or timezone.now()) - timedelta(seconds=live.spectator_delay)


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def public_length(live: LiveMatch, cutoff: datetime | None) -> int:
    """How many actions of the log were played by ``cutoff`` (all of them for None)."""
    if cutoff is None:
        return len(live.log)
    limit = _ms(cutoff)
    return sum(1 for entry in live.log if entry[2] <= limit)


def public_history(live: LiveMatch, rows: Sequence[LiveSeat], cutoff: datetime
                   ) -> tuple[State, list[tuple[int, Event]], int, list[dict[str, Any]]]:
    """A running match as its spectators see it at ``cutoff``: the state after the actions
    played by then, their events (``engine_state.history``), how many they are, and every
    seat's clock as it stood at ``cutoff`` (:func:`clocks_json`'s shape), replayed from the
    log's times with the rules of ``live.clock.run_clocks``."""
    upto = public_length(live, cutoff)
    state, dealt = engine_state.opening(live)
    events: list[tuple[int, Event]] = [(-1, e) for e in dealt]
    remaining = {r.seat: live.initial_ms for r in rows}
    running = dict.fromkeys(state.to_act(), _ms(live.created))
    for index, entry in enumerate(live.log[:upto]):
        seat, at = int(entry[0]), int(entry[2])
        events.extend((index, e) for e in engine_state.apply_entry(state, entry))
        after = set(state.to_act()) if state.outcome is None else set()
        for s in list(running):
            if s == seat or s not in after:
                remaining[s] = max(0, remaining.get(s, 0) - (at - running.pop(s)))
        if state.outcome is None:
            remaining[seat] = remaining.get(seat, 0) + live.increment_ms
        for s in after:
            running.setdefault(s, at)
    limit = _ms(cutoff)
    clocks = []
    for r in rows:
        late = r.timed_out_at is not None and r.timed_out_at <= cutoff
        # A clock that started after ``cutoff`` (a match created since) was not running then.
        runs = r.seat in running and running[r.seat] <= limit and not late
        left = remaining.get(r.seat, 0) - (limit - running[r.seat] if runs else 0)
        clocks.append({"seat": r.seat, "remaining_ms": 0 if late else max(0, left), "running": runs,
                       "timed_out": late})
    return state, events, upto, clocks


def public_clocks(live: LiveMatch, rows: Sequence[LiveSeat], now: datetime | None = None) -> list[dict[str, Any]]:
    """Every seat's clock as anyone but the players may see it at ``now``
    (:func:`clocks_json`'s shape): as it stands for a match without delay or over, else as
    it stood at :func:`public_cutoff` (whose turn it was then, and the time left then).
    Replays the log only when an action was played since that moment."""
    now = now or timezone.now()
    cutoff = public_cutoff(live, now)
    if cutoff is None:
        return clocks_json(rows, now)
    if public_length(live, cutoff) == len(live.log):
        # Nothing played since: the clocks ran as they run now, ``cutoff`` is just earlier.
        clocks = clocks_json(rows, cutoff)
        for clock, row in zip(clocks, rows, strict=True):
            late = row.timed_out_at is not None and row.timed_out_at <= cutoff
            clock["timed_out"] = late
            if row.timed_out_at is not None and not late:
                # Out of time since: at ``cutoff`` its clock still ran down to that moment.
                clock.update(running=True, remaining_ms=_ms(row.timed_out_at) - _ms(cutoff))
            elif row.running_since is not None and row.running_since > cutoff:
                clock["running"] = False
                clock["remaining_ms"] = max(0, row.remaining_ms)
        return clocks
    return public_history(live, rows, cutoff)[3]


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


def challenge_json(challenge: LiveChallenge) -> dict[str, Any]:
    """A challenge as the API and the lobby show it (its deck named as anyone may see it)."""
    return {
        "id": challenge.pk,
        "challenger": challenge.challenger.username,
        "challenged": challenge.challenged.username,
        "game": challenge.game,
        "game_title": challenge.game_title,
        "deck": public_deck_name(challenge.deck_version),
        "status": challenge.status,
        "expires": challenge.expires.isoformat(),
        "match": challenge.match_id,
        "url": f"/live/{challenge.match_id}/" if challenge.match_id else None,
    }


def challenge_lists_json(*, user) -> dict[str, list[dict[str, Any]]]:
    """:func:`challenges_for` as JSON: ``GET /api/live/challenges/``, and the lists the
    lobby page is drawn with before its first refresh."""
    return {key: [challenge_json(c) for c in found] for key, found in challenges_for(user=user).items()}


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
