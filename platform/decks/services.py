"""Writes of the decks app: registering, editing and archiving decks.

Every write validates the whole input first and reports every problem at once, as a
``django.core.exceptions.ValidationError`` whose ``message_dict`` maps a field (``game``,
``name``, ``decklist``, ``pilot``) to its messages; nothing is written when anything is
wrong. Decklists are checked by the engine's own deck rules (``Game.parse_deck``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max

from decks.models import Deck, DeckVersion
from decks.permissions import can_delete_deck, can_edit_deck
from engine import games
from engine.bots import clean_platform_spec
from engine.core import DeckError, Decklist
from web.games import game_names, game_title

#: Longest accepted deck name.
NAME_MAX_LENGTH = Deck._meta.get_field("name").max_length
#: Longest accepted decklist text. Real decklists are a few hundred characters.
DECKLIST_MAX_CHARS = 10_000


@dataclass(frozen=True)
class CheckedDeck:
    """A decklist accepted by the engine: the canonical text and the parsed list."""

    text: str
    decklist: Decklist

    @property
    def commander(self) -> str:
        return self.decklist.commander or ""


def deck_check(*, game: str, decklist: str, name: str = "") -> CheckedDeck:
    """Parse and validate ``decklist`` for ``game``; raises ``ValidationError`` with every
    problem under ``decklist`` (or under ``game`` when the game is unknown).

    The returned text is the engine's canonical form: names spelled as in the pool,
    repeated lines merged, the commander line first.
    """
    if game not in game_names():
        raise ValidationError({"game": [_unknown_game(game)]})
    if not isinstance(decklist, str) or not decklist.strip():
        raise ValidationError({"decklist": ["the decklist is empty: paste or build a list of cards"]})
    if len(decklist) > DECKLIST_MAX_CHARS:
        raise ValidationError(
            {"decklist": [f"the decklist is {len(decklist)} characters long; at most {DECKLIST_MAX_CHARS} are allowed"]}
        )
    oversized = _oversized_counts(decklist)
    if oversized:
        raise ValidationError({"decklist": oversized})
    engine_game = games[game]
    try:
        parsed = engine_game.parse_deck(decklist, name=name)
    except DeckError as exc:
        raise ValidationError({"decklist": [_other_game_hint(game, p) for p in exc.problems]}) from None
    return CheckedDeck(text=parsed.to_text(engine_game.commander_label), decklist=parsed)


#: Most digits a card count may have: no deck holds a thousand copies of anything, and a
#: count thousands of digits long would cost a big-integer conversion (or fail one).
COUNT_MAX_DIGITS = 3
_LEADING_COUNT = re.compile(r"^\s*(\d+)")


def _oversized_counts(decklist: str) -> list[str]:
    """A problem for each line whose card count has more than ``COUNT_MAX_DIGITS`` digits."""
    problems = []
    for number, line in enumerate(decklist.splitlines(), start=1):
        match = _LEADING_COUNT.match(line)
        if match and len(match.group(1).lstrip("0") or "0") > COUNT_MAX_DIGITS:
            digits = match.group(1)
            shown = digits if len(digits) <= 12 else f"{digits[:6]}…({len(digits)} digits)"
            problems.append(
                f"line {number}: the count {shown} is too large; a count has at most {COUNT_MAX_DIGITS} digits"
            )
    return problems


_UNKNOWN_NAME = re.compile(r"^unknown \w+ '(?P<name>.+)'$")


def _other_game_hint(game: str, problem: str) -> str:
    """``problem``, saying so when an unknown name is a card of the other game."""
    match = _UNKNOWN_NAME.match(problem)
    if not match:
        return problem
    name = match.group("name").casefold()
    for other in game_names():
        if other != game and name in {n.casefold() for n in games[other].card_names()}:
            return f"{problem}: that is a {game_title(other)} card, not a {game_title(game)} one"
    return problem


def deck_problems(
    *,
    game: str | None = None,
    name: str | None = None,
    decklist: str | None = None,
    pilot: str | None = None,
) -> dict[str, list[str]]:
    """Every problem of the fields given, by field; fields left None are not checked.

    A decklist is checked only together with its game. Forms and the API use this to show
    their own input errors and the deck's problems side by side.
    """
    errors: dict[str, list[str]] = {}
    if game is not None and game not in game_names():
        errors["game"] = [_unknown_game(game)]
    if name is not None:
        _collect(errors, "name", lambda: _clean_name(name))
    if pilot is not None:
        _collect(errors, "pilot", lambda: _clean_pilot(pilot))
    if decklist is not None and game is not None and "game" not in errors:
        _collect_many(errors, lambda: deck_check(game=game, decklist=decklist, name=name or ""))
    return errors


def deck_register(
    *,
    owner: AbstractBaseUser,
    game: str,
    name: str,
    decklist: str,
    pilot: str,
    is_starter: bool = False,
    ladder: bool = False,
) -> Deck:
    """Create a deck and its version 1 for ``owner`` (on the bot ladder when ``ladder``).

    Raises ``ValidationError`` listing every problem of every field at once.
    """
    errors: dict[str, list[str]] = {}
    if not game:
        errors["game"] = [f"choose a game: {', '.join(game_names())}"]
    clean_name = _collect(errors, "name", lambda: _clean_name(name))
    clean_pilot = _collect(errors, "pilot", lambda: _clean_pilot(pilot))
    checked = (
        _collect_many(errors, lambda: deck_check(game=game, decklist=decklist, name=clean_name or ""))
        if game
        else None
    )
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        deck = Deck.objects.create(owner=owner, game=game, name=clean_name, pilot=clean_pilot, is_starter=is_starter,
                                   ladder=bool(ladder))
        DeckVersion.objects.create(
            deck=deck, number=1, decklist=checked.text, commander=checked.commander, pilot=clean_pilot
        )
    return deck


def deck_update(
    *,
    deck: Deck,
    actor: AbstractBaseUser,
    name: str | None = None,
    decklist: str | None = None,
    pilot: str | None = None,
    ladder: bool | None = None,
) -> DeckVersion:
    """Change a deck's name, cards or pilot, or whether it plays on the bot ladder
    (``ladder``); returns the deck's latest version afterwards.

    A new version (the next number) is written whenever the cards, the commander or the
    pilot differ from the latest version; a rename alone changes only the deck. Old
    versions are never touched. Only the owner may edit (``PermissionDenied`` otherwise);
    invalid input raises ``ValidationError`` with every problem and changes nothing.

    Locks the deck row (``select_for_update``) so that two edits at once get two distinct
    version numbers.
    """
    if not can_edit_deck(actor, deck):
        raise PermissionDenied("only the owner of a deck can edit it")
    errors: dict[str, list[str]] = {}
    clean_name = _collect(errors, "name", lambda: _clean_name(name)) if name is not None else None
    clean_pilot = _collect(errors, "pilot", lambda: _clean_pilot(pilot)) if pilot is not None else None
    checked = (
        _collect_many(errors, lambda: deck_check(game=deck.game, decklist=decklist, name=clean_name or deck.name))
        if decklist is not None
        else None
    )
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        locked = Deck.objects.select_for_update().get(pk=deck.pk)
        latest = DeckVersion.objects.filter(deck=locked).order_by("-number").first()
        new_text = checked.text if checked else latest.decklist
        new_commander = checked.commander if checked else latest.commander
        new_pilot = clean_pilot if clean_pilot is not None else latest.pilot
        changed = new_pilot != latest.pilot or (checked is not None and not _same_cards(checked, latest))
        if changed:
            number = (DeckVersion.objects.filter(deck=locked).aggregate(top=Max("number"))["top"] or 0) + 1
            latest = DeckVersion.objects.create(
                deck=locked, number=number, decklist=new_text, commander=new_commander, pilot=new_pilot
            )
        if clean_name is not None:
            locked.name = clean_name
        locked.pilot = new_pilot
        if ladder is not None:
            locked.ladder = bool(ladder)
        locked.save(update_fields=["name", "pilot", "ladder", "updated"])
    deck.refresh_from_db()
    return latest


def deck_archive(*, deck: Deck, actor: AbstractBaseUser) -> None:
    """Delete a deck for its owner: it leaves every list and cannot be edited again, while
    its versions stay for the matches and tournaments that played them.

    ``PermissionDenied`` unless ``actor`` may delete it.
    """
    if not can_delete_deck(actor, deck):
        raise PermissionDenied("only the owner of a deck can delete it")
    Deck.objects.filter(pk=deck.pk).update(archived=True)
    deck.refresh_from_db()


# --------------------------------------------------------------------------- field checks


def _unknown_game(game: object) -> str:
    return f"unknown game '{game}'; choose one of: {', '.join(game_names())}"


def _clean_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ValidationError("a deck needs a name")
    clean = " ".join(name.split())
    if len(clean) > NAME_MAX_LENGTH:
        raise ValidationError(f"the name is {len(clean)} characters long; at most {NAME_MAX_LENGTH} are allowed")
    return clean


def _clean_pilot(pilot: object) -> str:
    """The bot spec in canonical form (lower case, no spaces): 'greedy', 'search:fast'.
    The engine's ``clean_platform_spec`` decides, as for every bot that enters the platform."""
    if not isinstance(pilot, str) or not pilot.strip():
        raise ValidationError("choose a bot to pilot the deck")
    try:
        return clean_platform_spec(pilot)
    except ValueError as exc:
        raise ValidationError(str(exc)) from None


def _same_cards(checked: CheckedDeck, version: DeckVersion) -> bool:
    """True when ``checked`` holds the same commander and card counts as ``version``
    (the order of lines does not make a new deck)."""
    old = version.to_engine()
    return checked.decklist.commander == old.commander and checked.decklist.counts() == old.counts()


def _collect(errors: dict[str, list[str]], field: str, check):
    """Run ``check``; file its ``ValidationError`` messages under ``field``."""
    try:
        return check()
    except ValidationError as exc:
        errors.setdefault(field, []).extend(exc.messages)
        return None


def _collect_many(errors: dict[str, list[str]], check):
    """Run ``check``, which raises a ``ValidationError`` keyed by field; merge its messages."""
    try:
        return check()
    except ValidationError as exc:
        for field, messages in exc.message_dict.items():
            errors.setdefault(field, []).extend(messages)
        return None
