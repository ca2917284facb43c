"""Helpers of the deck lab tests: decks built from the games' starter decks, and a run
played in this process (claim, play, record: what the worker's task does, chunk by chunk)."""

from __future__ import annotations

from django.contrib.auth.models import User

from decks.models import Deck
from decks.services import deck_register
from engine import games
from lab.models import LabRun
from lab.play import play_chunk
from lab.services import lab_claim_chunk, lab_record_chunk


def starter_text(game: str, index: int = 0) -> str:
    engine_game = games[game]
    deck = list(engine_game.starter_decks().values())[index]
    return deck.to_text(engine_game.commander_label)


def make_deck(owner: User, game: str = "tempofront", *, index: int = 0, name: str | None = None,
              starter: bool = False) -> Deck:
    """A deck of ``owner`` from starter list ``index`` of ``game``; ``starter``: one of the
    site's starter decks (the ``starters`` field)."""
    return deck_register(owner=owner, game=game, name=name or f"{owner.username} {game} {index}",
                         decklist=starter_text(game, index), pilot="random", is_starter=starter)


def play_in_process(run: LabRun, *, worker: str = "test-worker") -> LabRun:
    """Every chunk of ``run`` claimed, played and recorded here, in order."""
    for chunk_id in run.chunks.order_by("first").values_list("pk", flat=True):
        chunk = lab_claim_chunk(chunk_id=chunk_id, worker=worker)
        assert chunk is not None, f"chunk {chunk_id} could not be claimed"
        lab_record_chunk(chunk_id=chunk_id, worker=worker, played=play_chunk(chunk, worker=worker))
    run.refresh_from_db()
    return run


