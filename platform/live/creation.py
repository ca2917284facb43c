"""Creating live matches: checking and dealing them, writing one or a round's worth.

:func:`live_plan` checks the seats, decks and parameters and deals the opening without
writing; :func:`live_create_many` writes plans together (a round of a live event),
:func:`live_create` one. The checks a request makes before it asks for a match (the deck
is the player's own, it fits the game's defaults, a seat count a queue has) are here too,
shared by ``live.matchmaking`` and ``live.challenges``.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from decks.models import DeckVersion
from engine import games as engine_games
from engine.bots import clean_platform_spec
from engine.core import DeckError, State
from live import conf, engine_state
from live.broadcasts import send_after_commit
from live.clock import next_deadline
from live.models import TITLE_MAX, LiveMatch, LiveSeat
from matches import services as match_services
from matches.play import game_seed

HUMAN = "human"


@dataclass(frozen=True)
class SeatSpec:
    """Who plays one seat: a user, or a bot spec, with a deck version."""

    deck_version: DeckVersion
    user: Any = None
    bot: str = ""


@dataclass
class LivePlan:
    """A live match checked and dealt, not yet written (:func:`live_plan`); one or many
    are written by :func:`live_create_many`."""

    specs: list[SeatSpec]
    game: str
    state: State
    rows: list[LiveSeat]
    created_by: Any
    params: dict[str, Any]
    seed: int
    initial_ms: int
    increment_ms: int
    spectator_delay: int
    title: str = ""
    #: A ladder match played live (docs/bots-api.md): rated in the ladder's bots pool.
    ladder: bool = False


def clean_title(title: Any) -> str:
    """``title`` with its runs of white space made single spaces; raises ``ValidationError``
    (``title``) for one that is not text or is longer than ``TITLE_MAX`` characters."""
    if not isinstance(title, str):
        raise ValidationError({"title": [f"the title must be text, not {type(title).__name__}"]})
    title = " ".join(title.split())
    if len(title) > TITLE_MAX:
        raise ValidationError({"title": [f"the title has {len(title)} characters; at most {TITLE_MAX}"]})
    return title


def live_plan(
    *,
    seats: Sequence[SeatSpec],
    created_by=None,
    initial_ms: int | None = None,
    increment_ms: int | None = None,
    spectator_delay: int | None = None,
    seed: int | None = None,
    params: dict[str, Any] | None = None,
    title: str = "",
    ladder: bool = False,
) -> LivePlan:
    """Check and deal a live match as :func:`live_create` would, writing nothing; raises
    the same ``ValidationError``. ``title`` is what the board and the players' banner call
    the match (:func:`clean_title`)."""
    title = clean_title(title)
    errors: dict[str, list[str]] = {}
    specs = list(seats)
    game_names = sorted({s.deck_version.deck.game for s in specs})
    if len(game_names) != 1:
        raise ValidationError({"seats": ["every seat must play a deck of the same game"]})
    game = engine_games[game_names[0]]
    if not game.min_seats <= len(specs) <= game.max_seats:
        errors.setdefault("seats", []).append(
            f"{game.title} is played by {game.min_seats} to {game.max_seats} seats, not {len(specs)}")
    for index, spec in enumerate(specs):
        if spec.deck_version.deck.archived:
            errors.setdefault("seats", []).append(f"deck '{spec.deck_version.deck.name}' was deleted")
        if (spec.user is None) == (not spec.bot):
            errors.setdefault("seats", []).append(f"seat {index} needs either a player or a bot")
        if spec.bot:
            try:
                clean_platform_spec(spec.bot)
            except ValueError as exc:
                errors.setdefault("seats", []).append(str(exc))
    clean_params = dict(params or {})
    if seed is None:
        seed = secrets.randbits(53)
    if not errors:
        # Every seat's deck against the match's own parameters, each problem naming its
        # deck and the parameter, before a game is set up or a row written.
        try:
            problems = match_services.match_deck_problems(deck_versions=[s.deck_version for s in specs],
                                                          params=clean_params)
        except ValueError as exc:
            errors.setdefault("params", []).append(str(exc))
        else:
            if problems:
                errors.setdefault("seats", []).extend(problems)
    if not errors:
        try:
            state = game.new_match([s.deck_version.to_engine() for s in specs], game_seed(seed, 1), clean_params)
        except DeckError as exc:
            errors.setdefault("seats", []).extend(exc.problems)
        except ValueError as exc:
            errors.setdefault("params", []).append(str(exc))
    if errors:
        raise ValidationError(errors)
    default_initial, default_increment = conf.clock_for(game.name, len(specs))
    initial_ms = default_initial if initial_ms is None else int(initial_ms)
    increment_ms = default_increment if increment_ms is None else int(increment_ms)
    spectator_delay = conf.spectator_delay() if spectator_delay is None else int(spectator_delay)
    now = timezone.now()
    to_act = set(state.to_act())
    rows = [
        LiveSeat(seat=i, user=s.user, bot=s.bot, deck_version=s.deck_version,
                 remaining_ms=initial_ms, running_since=now if i in to_act else None)
        for i, s in enumerate(specs)
    ]
    return LivePlan(specs=specs, game=game.name, state=state, rows=rows, created_by=created_by,
                    params=clean_params, seed=seed, initial_ms=initial_ms, increment_ms=increment_ms,
                    spectator_delay=spectator_delay, title=title, ladder=ladder)


def live_create(
    *,
    seats: Sequence[SeatSpec],
    created_by=None,
    initial_ms: int | None = None,
    increment_ms: int | None = None,
    spectator_delay: int | None = None,
    seed: int | None = None,
    params: dict[str, Any] | None = None,
    title: str = "",
    ladder: bool = False,
) -> LiveMatch:
    """Create a live match (a ``Match`` of kind ``live`` and its :class:`LiveMatch`),
    called ``title`` on its board and in its players' banner (:func:`clean_title`; empty:
    "Live match").

    Validates at once and raises ``ValidationError`` (``seats``, ``params``): every deck
    for the same game, a seat count the game allows, each seat played by a user or a
    known bot, decks and parameters the engine accepts. The seats that act first have
    their clocks started; on commit the first bot decisions are enqueued.
    """
    return live_create_many([live_plan(seats=seats, created_by=created_by, initial_ms=initial_ms,
                                       increment_ms=increment_ms, spectator_delay=spectator_delay, seed=seed,
                                       params=params, title=title, ladder=ladder)])[0]


def live_create_many(plans: Sequence[LivePlan]) -> list[LiveMatch]:
    """Write the live matches of ``plans`` (:func:`live_plan`), in their order: four
    statements for them all (the matches, their seats, the live matches, their seats),
    so that a round of a live event starts a hundred tables in about the time of one."""
    plans = list(plans)
    if not plans:
        return []
    # No savepoint of its own: everything that can be refused was checked by live_plan, so
    # inside a caller's transaction (a tournament round creates its matches in one) a
    # failure here fails the caller's transaction anyway.
    with transaction.atomic(savepoint=False):
        matches = match_services.match_create_live_many([
            match_services.LiveMatchSpec(created_by=plan.created_by, deck_versions=[s.deck_version for s in plan.specs],
                                         pilots=[s.bot or HUMAN for s in plan.specs], params=plan.params,
                                         seed=plan.seed, ladder=plan.ladder)
            for plan in plans])
        lives = [LiveMatch(match=match, game=plan.game, initial_ms=plan.initial_ms, increment_ms=plan.increment_ms,
                           spectator_delay=plan.spectator_delay, next_deadline=next_deadline(plan.rows),
                           title=plan.title)
                 for plan, match in zip(plans, matches, strict=True)]
        if connection.features.can_return_rows_from_bulk_insert:
            LiveMatch.objects.bulk_create(lives)
        else:  # a database that does not return the keys of a bulk insert: one at a time
            for live in lives:
                live.save(force_insert=True)
        for plan, live in zip(plans, lives, strict=True):
            for row in plan.rows:
                row.live = live
        LiveSeat.objects.bulk_create([row for plan in plans for row in plan.rows])
        for plan, live in zip(plans, lives, strict=True):
            engine_state.remember(live.match_id, 0, plan.state)
            # No views are broadcast for a new match: no socket can have joined its group
            # before it existed, and a board's opening view is read when it connects.
            send_after_commit(live, plan.rows, plan.state, views=False)
    return lives


def require_own_deck(user, deck_version: DeckVersion, field: str = "deck") -> None:
    """Refuse (``ValidationError`` on ``field``) a deck that is not ``user``'s or was deleted."""
    if deck_version.deck.owner_id != user.pk:
        raise ValidationError({field: [f"deck '{deck_version.deck.name}' is not yours"]})
    if deck_version.deck.archived:
        raise ValidationError({field: [f"deck '{deck_version.deck.name}' was deleted"]})


def require_deck_fits(deck_version: DeckVersion) -> None:
    """Refuse, before anything is written or paired, a deck that the live match it asks
    for would refuse. Queues, challenges and bot games take no parameters: their matches
    are played under the game's defaults (``params`` None)."""
    problems = match_services.match_deck_problems(deck_versions=[deck_version], params=None)
    if problems:
        raise ValidationError({"deck": problems})


def clean_queue_seats(game: str, seats: Any) -> int:
    """``seats`` if ``game``'s queues have that many seats; else ``ValidationError``."""
    if game not in engine_games:
        raise ValidationError({"game": [f"unknown game '{game}'"]})
    allowed = engine_games[game].queue_seats
    if isinstance(seats, bool) or seats not in allowed:
        raise ValidationError({"seats": [f"{engine_games[game].title} queues have "
                                         f"{' or '.join(map(str, allowed))} seats, not {seats!r}"]})
    return seats
