"""Reads of the matches app, for views, the API, the consumer and other apps."""

from __future__ import annotations

import json
import zlib
from typing import Any

from django.core.cache import cache
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Prefetch, Q, QuerySet

from decks.permissions import deck_visibility
from matches.models import Match, MatchGame, MatchSeat
from matches.replays import frames_page


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


def match_seat_labels(match: Match, *, visibility=None) -> list[dict[str, Any]]:
    """Entry number, deck id, name and version, owner and pilot of each entry.

    A deck the viewer may not see (``visibility``, a ``decks.permissions.DeckVisibility``;
    None: an anonymous visitor) has a null ``deck_id`` and ``version`` and its hidden label
    as ``deck``; ``hidden_until`` says until when (None for a visible deck)."""
    if visibility is None:
        visibility = deck_visibility(None)
    return [
        {
            "seat": s.seat,
            **visibility.deck_json(s.deck_version),
            "owner": s.deck_version.deck.owner.get_username(),
            "pilot": s.pilot,
        }
        for s in match.seats.all()
    ]


def match_sealed(match: Match, *, visibility=None) -> bool:
    """Whether a deck of ``match`` is hidden from the viewer (``visibility``; None: an
    anonymous visitor): then its replays, actions and seed stay closed to them, as they
    would reveal the deck's list."""
    if visibility is None:
        visibility = deck_visibility(None)
    return any(not visibility.can_view(s.deck_version) for s in match.seats.all())


#: Frames a replay page holds by default, at most, and the positions one cache entry holds.
REPLAY_PAGE_DEFAULT = 50
REPLAY_PAGE_MAX = 200
REPLAY_CHUNK = 50
#: No replay page's frames may serialize to more than this many bytes: a page that would is
#: cut short (at least one frame is always sent; one frame of the largest four-player game
#: is a few tens of kB).
REPLAY_PAGE_MAX_BYTES = 1_000_000


def match_replay_page(
    *, match: Match, game: MatchGame, all_seats: bool = True, start: int = 0, count: int = REPLAY_PAGE_DEFAULT,
    visibility=None,
) -> bytes:
    """One page of the replay of one game, for the viewer and the API, as a JSON document.

    The stored replay's ``format``, ``game``, ``rules_version``, ``decks`` and ``params``,
    with ``outcome`` the game's final outcome (after any Match the Twos, whose records are
    also in ``tiebreak``), plus ``match``, ``number``, ``games``, ``seats`` (per engine
    seat: the entry and its deck, owner and pilot), ``bot_errors``, ``verified_at``,
    ``all_seats``, ``actions_count``, ``total_frames`` (``actions_count + 1``: position 0
    is the opening) and the page: ``from``, ``count`` (frames sent), ``next_from`` (null at
    the end) and ``frames`` (see :func:`matches.replays.replay_frames`) for positions
    ``start`` to ``start + count - 1``, ``count`` clipped to ``REPLAY_PAGE_MAX`` and the
    page to ``REPLAY_PAGE_MAX_BYTES``.

    ``seed`` (the game's), ``match_seed``, ``seed_salt`` and ``seed_commitment`` are filled
    only with ``all_seats`` (the match is over); before that they are null except the
    commitment. Without ``all_seats`` frames hold only public views, public events and
    public actions. Call ``services.match_game_verify`` first: frames of a log that does
    not replay raise.

    The replay holds every deck's list: the API and the viewer refuse the replays of a
    match with a deck hidden from the viewer before calling this (``visibility`` names
    the seats' decks as that viewer may see them).

    Frames are kept as JSON text from the cache to the response (a four-player frame with
    every seat's view is tens of kB: parsing and re-encoding a page would cost more than
    building it), so the document is assembled here rather than by a renderer.
    """
    replay = game.load_replay()
    data = replay.to_json()
    tiebreak = list(replay.meta.get("match_the_twos") or [])
    for key in ("meta", "digests", "actions", "seed"):
        data.pop(key, None)
    labels = match_seat_labels(match, visibility=visibility)
    total = len(replay.actions) + 1
    start = max(0, min(int(start), total - 1))
    count = max(1, min(int(count), REPLAY_PAGE_MAX))
    frames = _page(game=game, replay=replay, tiebreak=tiebreak, all_seats=all_seats, start=start, count=count)
    data.update(
        match=match.pk,
        number=game.number,
        games=match.games.count(),
        outcome=dict(game.outcome),
        engine_outcome=replay.outcome.to_json() if replay.outcome else None,
        tiebreak=tiebreak,
        seats=[{**labels[entry], "seat": seat, "entry": entry} for seat, entry in enumerate(game.seat_order)],
        bot_errors=list(game.bot_errors) if all_seats else _public_bot_errors(game.bot_errors),
        verified_at=game.verified_at.isoformat() if game.verified_at else None,
        all_seats=all_seats,
        seed=replay.seed if all_seats else None,
        match_seed=match.seed if all_seats else None,
        seed_salt=match.seed_salt if all_seats else None,
        seed_commitment=match.seed_commitment,
        actions_count=len(replay.actions),
        total_frames=total,
        count=len(frames),
        next_from=start + len(frames) if start + len(frames) < total else None,
    )
    data["from"] = start
    head = json.dumps(data, separators=(",", ":"), cls=DjangoJSONEncoder)
    return (head[:-1] + ',"frames":[' + ",".join(frames) + "]}").encode()


def match_replay_file(*, match: Match, game: MatchGame) -> dict[str, Any]:
    """The engine's replay file of one game of a finished match: what
    ``python -m engine replay --verify`` reads (its ``meta`` holds the Match the Twos
    reveals), plus ``match_seed``, ``seed_salt`` and ``seed_commitment`` under ``platform``
    so the commitment can be checked from the file alone. Only for a match that is over."""
    if not match.seed_revealed:
        raise ValueError(f"match {match.pk} is not over: its replay file is secret")
    data = game.load_replay().to_json()
    data["platform"] = {"match": match.pk, "number": game.number, "match_seed": match.seed,
                        "seed_salt": match.seed_salt, "seed_commitment": match.seed_commitment}
    return data


def _public_bot_errors(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from matches.serializers import public_bot_error  # cycle: matches.serializers imports matches.selectors

    return [public_bot_error(error) for error in errors]


#: Seconds the frames of a finished game stay cached (they can never change: the log,
#: the seed and the engine's rules version make them).
FRAMES_CACHE_SECONDS = 24 * 3600


def _page(*, game: MatchGame, replay, tiebreak: list, all_seats: bool, start: int, count: int) -> list[str]:
    """Positions ``start`` .. ``start + count - 1`` (as JSON text) from cached chunks of
    ``REPLAY_CHUNK`` positions, each built once by the engine; cut to ``REPLAY_PAGE_MAX_BYTES``."""
    total = len(replay.actions) + 1
    stop = min(total, start + count)
    frames: list[str] = []
    size = 0
    # Chunks are built (or read) one by one, and no further once the byte cap is reached.
    for chunk in range(start // REPLAY_CHUNK, (stop - 1) // REPLAY_CHUNK + 1):
        first = chunk * REPLAY_CHUNK
        texts = _chunk(game=game, replay=replay, tiebreak=tiebreak, all_seats=all_seats, chunk=chunk)
        for offset, frame in enumerate(texts):
            if not start <= first + offset < stop:
                continue
            size += len(frame) + 1
            if size > REPLAY_PAGE_MAX_BYTES and frames:
                return frames
            frames.append(frame)
    return frames


def _chunk(*, game: MatchGame, replay, tiebreak: list, all_seats: bool, chunk: int) -> list[str]:
    """The frames of one chunk as JSON texts (one line each), rebuilt by the engine once and
    then cached compressed, keyed by game, rules version, chunk and whose cards are shown."""
    first = chunk * REPLAY_CHUNK
    key = (f"replay-chunk:{game.pk}:{replay.game}:{replay.rules_version}:{int(all_seats)}"
           f":{len(replay.actions)}:{len(tiebreak)}:{REPLAY_CHUNK}:{chunk}")
    blob = cache.get(key)
    if blob is not None:
        return zlib.decompress(blob).decode().split("\n")
    frames = [json.dumps(frame, separators=(",", ":"))
              for frame in frames_page(replay, start=first, stop=first + REPLAY_CHUNK, tiebreak=tiebreak,
                                       all_seats=all_seats)]
    if game.outcome and game.tiebreak != MatchGame.Tiebreak.PENDING:
        # json.dumps escapes every newline inside a string, so one frame is one line.
        cache.set(key, zlib.compress("\n".join(frames).encode(), 6), FRAMES_CACHE_SECONDS)
    return frames
