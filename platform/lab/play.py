"""Playing a claimed chunk of a lab run: each match seated, seeded and played by the
engine's one match runner, its usage read from the events the runner recorded, and the
chunk written at the end in one transaction (:func:`lab.services.lab_record_chunk`).

Match ``k`` of a run (1 for the first) plays field deck ``(k - 1) // 2`` (cycling through
the field) with the lab deck on the play when ``k`` is odd and on the draw when it is even,
so every opponent meets the deck from both seats in turn. Its seed is a function of the
run's seed and ``k`` alone: a chunk played again after a crash deals the same games.
"""

from __future__ import annotations

import time
from functools import lru_cache

from decks.models import DeckVersion
from engine import games as engine_games
from engine.bots import make_bot
from engine.core import seed_from
from engine.runner import play_match
from lab import conf
from lab.models import LabChunk, LabMatch, LabRun
from lab.services import PlayedLabMatch, lab_renew_chunk
from matches.conf import decision_seconds


def match_seed(run_seed: int, number: int) -> int:
    """Match ``number``'s seed, below 2**53 as every seed the platform shows."""
    return seed_from(run_seed, "lab", number) >> 11


def opponent_index(number: int, field_size: int) -> int:
    """Which deck of the field match ``number`` plays: two matches (one per seat) each in turn."""
    return ((number - 1) // 2) % field_size


def deck_seat(number: int) -> int:
    """The lab deck's engine seat in match ``number``: 0 (on the play) for odd numbers."""
    return (number - 1) % 2


@lru_cache(maxsize=8)
def _card_names(game: str, rules_version: str) -> dict[str, str]:
    """Card id -> name for a game's pool (usage counts by id; the lab stores names)."""
    return {card["id"]: card["name"] for card in engine_games[game].cards()}


def _names(ids, names: dict[str, str]) -> list[str]:
    return sorted(names.get(card, card) for card in ids)


def _outcome(winner: int | None, seat: int) -> str:
    if winner is None:
        return LabMatch.Outcome.DRAW
    return LabMatch.Outcome.WIN if winner == seat else LabMatch.Outcome.LOSS


def play_chunk(chunk: LabChunk, *, worker: str) -> list[PlayedLabMatch]:
    """Play every match of the claimed ``chunk`` and return them, unwritten.

    The lease is renewed from the engine's per-action callback (so a long match keeps it
    too) at most once a second, and at least every third of its period; a renewal that
    finds the chunk gone (handed on, or its run cancelled) stops the chunk with
    :class:`lab.services.LeaseLost`, so a cancelled run stops within a second of play."""
    run: LabRun = chunk.run
    game = engine_games[run.game]
    names = _card_names(run.game, str(game.rules_version))
    versions = {v.pk: v for v in DeckVersion.objects.select_related("deck").filter(
        pk__in=[run.deck_version_id, *run.field_versions])}
    deck = versions[run.deck_version_id].to_engine()
    field = [versions[pk].to_engine() for pk in run.field_versions]
    limit = decision_seconds()
    every = min(1.0, conf.renew_every_seconds())
    last = time.monotonic()

    def renew(*_args) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= every:
            last = now
            lab_renew_chunk(chunk_id=chunk.pk, worker=worker)

    played: list[PlayedLabMatch] = []
    for number in chunk.numbers:
        index = opponent_index(number, len(field))
        seat = deck_seat(number)
        decks = [deck, field[index]] if seat == 0 else [field[index], deck]
        pilots = [run.pilot, run.opponent_pilot] if seat == 0 else [run.opponent_pilot, run.pilot]
        began = time.perf_counter()
        result = play_match(game, decks, [make_bot(p) for p in pilots], seed=match_seed(run.seed, number),
                            decision_seconds=limit, record_events=True, on_action=renew)
        usage = game.card_usage(result.replay, events=result.events)
        engine_seconds = time.perf_counter() - began
        mine, theirs = usage[seat], usage[1 - seat]
        played.append(PlayedLabMatch(
            number=number,
            opponent_version_id=run.field_versions[index],
            deck_seat=seat,
            outcome=_outcome(result.outcome.winner, seat),
            actions=len(result.replay.actions),
            ending=str(result.outcome.reason or ""),
            usage={"deck": {"drawn": _names(mine.drawn_cards, names), "played": _names(mine.played_cards, names)},
                   "opponent": {"drawn": _names(theirs.drawn_cards, names),
                                "played": _names(theirs.played_cards, names)}},
            replay=LabMatch.compress(result.replay),
            engine_seconds=engine_seconds,
        ))
        renew()
    return played

