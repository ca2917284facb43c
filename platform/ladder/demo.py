"""Demo data of the ladder, loaded by ``manage.py load_demo`` after the decks app's: every
starter deck plays on the ladder, so beat's ``ladder.tick`` starts pairing them at once
and the leaderboards fill within minutes of ``make run``. Idempotent."""

from __future__ import annotations

from collections.abc import Callable

from decks.models import Deck


def load_demo_data(*, log: Callable[[str], None]) -> None:
    """Opt every starter deck in to the ladder."""
    changed = Deck.objects.filter(is_starter=True, archived=False, ladder=False).update(ladder=True)
    total = Deck.objects.filter(is_starter=True, archived=False, ladder=True).count()
    log(f"{total} starter decks on the ladder ({changed} newly opted in)")
