"""Reads of the matches app, for views, the API, the consumer and other apps."""

from __future__ import annotations

import json
import zlib
from typing import Any

from django.core.cache import cache
from django.db.models import Prefetch, Q, QuerySet

from matches.models import Match, MatchGame, MatchSeat
from matches.replays import replay_frames


def _with_relations(matches: QuerySet[Match]) -> QuerySet[Match]:
    return matches.select_related("created_by").prefetch_related(
        Prefetch(
            "seats",
            queryset=MatchSeat.objects.select_related("deck_version", "deck_version__deck",
                                                      "deck_version__deck__owner").order_by("seat"),
        ),
        Prefetch("games", queryset=MatchGame.objects.defer("replay").order_by("number")),
    )


def match_list(
    *,
    deck: int | None = None,
    player: str | None = None,
    game: str | None = None,
    status: str | None = None,
) -> QuerySet[Match]:
    """Matches, newest first, with entries and games (without replays) loaded.

    ``deck``: a deck id played in any version; ``player``: a username who owns one of the
    decks or created the match; ``game`` and ``status`` as stored.
    """
    matches = Match.objects.all()
    if deck is not None:
        matches = matches.filter(seats__deck_version__deck_id=deck)
    if player:
        matches = matches.filter(
            Q(seats__deck_version__deck__owner__username=player) | Q(created_by__username=player)
        )
    if game:
        matches = matches.filter(game=game)
    if status:
        matches = matches.filter(status=status)
    if deck is not None or player:
        matches = matches.distinct()
    return _with_relations(matches).order_by("-created", "-id")


def match_get(*, match_id: int) -> Match:
    """One match with entries and games; ``Match.DoesNotExist`` if there is none."""
    return _with_relations(Match.objects.all()).get(pk=match_id)


def match_game_get(*, match: Match, number: int) -> MatchGame:
    """Game ``number`` of ``match``, replay included; ``MatchGame.DoesNotExist`` if none."""
    return MatchGame.objects.get(match=match, number=number)


def match_seat_labels(match: Match) -> list[dict[str, Any]]:
    """Entry number, deck name and version, owner and pilot of each entry."""
    return [
        {
            "seat": s.seat,
            "deck_id": s.deck_version.deck_id,
            "deck": s.deck_version.deck.name,
            "version": s.deck_version.number,
            "owner": s.deck_version.deck.owner.get_username(),
            "pilot": s.pilot,
        }
        for s in match.seats.all()
    ]


def match_replay_json(*, match: Match, game: MatchGame, all_seats: bool = True) -> dict[str, Any]:
    """The replay of one game for the viewer and the API.

    The stored replay (``format``, ``game``, ``rules_version``, ``seed``, ``decks``,
    ``params``, ``actions``) with ``outcome`` the game's final outcome (after any Match
    the Twos, whose records are also in ``tiebreak``), plus ``match``, ``number``,
    ``seats`` (per engine seat: the entry and its deck, owner and pilot), ``bot_errors``,
    ``verified_at``, ``all_seats`` and ``frames`` (see :func:`matches.replays.replay_frames`;
    without ``all_seats`` only the public view and public events). Call
    ``services.match_game_verify`` first: frames of a log that does not replay raise.
    """
    replay = game.load_replay()
    data = replay.to_json()
    tiebreak = list(replay.meta.get("match_the_twos") or [])
    data.pop("meta", None)
    data.pop("digests", None)
    labels = match_seat_labels(match)
    data.update(
        match=match.pk,
        number=game.number,
        games=match.games.count(),
        outcome=dict(game.outcome),
        engine_outcome=replay.outcome.to_json() if replay.outcome else None,
        tiebreak=tiebreak,
        seats=[{**labels[entry], "seat": seat, "entry": entry} for seat, entry in enumerate(game.seat_order)],
        bot_errors=list(game.bot_errors),
        verified_at=game.verified_at.isoformat() if game.verified_at else None,
        all_seats=all_seats,
        frames=_frames(game=game, replay=replay, tiebreak=tiebreak, all_seats=all_seats),
    )
    return data


#: Seconds the frames of a finished game stay cached (they can never change: the log,
#: the seed and the engine's rules version make them).
FRAMES_CACHE_SECONDS = 24 * 3600


def _frames(*, game: MatchGame, replay, tiebreak: list, all_seats: bool) -> list[dict[str, Any]]:
    """The viewer's frames, rebuilt by the engine once per finished game and then cached.

    Rebuilding a long four-player game takes the engine a second or more; the cache holds
    the frames as compressed JSON, keyed by game, rules version and whose cards are shown.
    """
    if not game.outcome:
        return replay_frames(replay, tiebreak=tiebreak, all_seats=all_seats)
    key = (f"replay-frames:{game.pk}:{replay.game}:{replay.rules_version}:{int(all_seats)}"
           f":{len(replay.actions)}:{len(tiebreak)}")
    blob = cache.get(key)
    if blob is not None:
        return json.loads(zlib.decompress(blob))
    frames = replay_frames(replay, tiebreak=tiebreak, all_seats=all_seats)
    cache.set(key, zlib.compress(json.dumps(frames, separators=(",", ":")).encode(), 6), FRAMES_CACHE_SECONDS)
    return frames
