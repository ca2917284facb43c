"""Deck pages: the list, the deck builder (new and edit), a deck with its history, delete."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods, require_safe

from accounts.selectors import recent_matches
from decks.cards.selectors import GAME_TITLES, CardFace, card_by_name, card_pool, type_rank
from decks.forms import DeckForm, commander_line_pattern
from decks.models import Deck, DeckVersion
from decks.permissions import can_delete_deck, can_edit_deck, request_deck_visibility
from decks.selectors import deck_get, deck_list, deck_version_get, deck_versions
from decks.services import NAME_MAX_LENGTH, deck_archive, deck_problems, deck_register, deck_update
from engine import games
from web.games import game_choices, game_names
from web.idempotency import page_create_once
from web.inputs import parse_id

#: Decks per page of the list.
DECKS_PER_PAGE = 20
#: The fields of the form that the deck services check.
DECK_FIELDS = ("game", "name", "decklist", "pilot")


@require_safe
def deck_index(request: HttpRequest) -> HttpResponse:
    """``/decks/?game=&owner=&q=&page=``: every deck, newest first, filtered and paginated."""
    game = request.GET.get("game", "")
    game = game if game in game_names() else ""
    owner = request.GET.get("owner", "").strip()[:150]
    q = request.GET.get("q", "").strip()[:100]
    decks = deck_list(game=game or None, owner=owner or None, q=q or None).exclude(
        pk__in=request_deck_visibility(request).hidden_ids())
    page_obj = Paginator(decks, DECKS_PER_PAGE).get_page(request.GET.get("page"))
    filters = {"game": game, "owner": owner, "q": q}
    return render(
        request,
        "decks/index.html",
        {
            "page_obj": page_obj,
            "filters": filters,
            "query": urlencode({k: v for k, v in filters.items() if v}),
            "games": game_choices(),
        },
    )


# --------------------------------------------------------------------------- the deck builder


def _builder_context(form: DeckForm, **extra) -> dict:
    """What the deck builder needs besides the form: both pools and each game's deck rules."""
    rules = {}
    for key in GAME_TITLES:
        params = games[key].default_params()
        rules[key] = {
            "title": GAME_TITLES[key],
            "label": games[key].commander_label,
            "deck_size": params.get("deck_size"),
            "max_copies": params.get("max_copies"),
        }
    return {
        "form": form,
        "pools": [{"game": key, "title": title, "cards": card_pool(key)} for key, title in GAME_TITLES.items()],
        "rules": rules,
        **extra,
    }


def _deck_errors(form: DeckForm) -> dict[str, str]:
    """Run the deck services' checks on every field the form accepted, and file their
    problems next to the form's own errors, so that every problem shows at once.

    Returns the checked values (the form is invalid afterwards if anything is wrong).
    """
    form.is_valid()
    values = {f: form.cleaned_data[f] for f in DECK_FIELDS if f in form.cleaned_data and f not in form.errors}
    if form.fixed_game:
        values["game"] = form.fixed_game
    if "commander" in form.errors:
        values.pop("decklist", None)
    for field, problems in deck_problems(**values).items():
        for problem in problems:
            form.add_error(field, problem)
    return values


@login_required
@require_http_methods(["GET", "POST"])
def deck_new(request: HttpRequest) -> HttpResponse:
    """``/decks/new/``: register a deck with the builder or the paste box."""
    requested_game = request.GET.get("game")
    initial = {"pilot": "greedy", "game": requested_game if requested_game in game_names() else None}
    copied = _copy_source(request)
    if copied is not None:
        initial = _copy_initial(*copied)
    form = DeckForm(request.POST or None, initial=initial)
    if request.method == "POST":
        values = _deck_errors(form)
        if not form.errors:
            def register() -> tuple[str, str]:
                deck = deck_register(owner=request.user, ladder=form.cleaned_data.get("ladder", False), **values)
                return deck.get_absolute_url(), f"Registered “{deck.name}” (version 1)."

            try:
                location, said, _ = page_create_once(request, scope="decks.register", create=register)
            except ValidationError as exc:
                _file_errors(form, exc)
            else:
                messages.success(request, said)
                return redirect(location)
    return render(request, "decks/form.html", _builder_context(form, deck=None, copied_from=copied))


def _copy_source(request: HttpRequest) -> tuple[Deck, DeckVersion] | None:
    """The deck and version that ``?copy=<deck id>&version=<n>`` names, or None (also for
    ids that name no deck: the builder then simply starts empty)."""
    deck_id, number = parse_id(request.GET.get("copy", "")), parse_id(request.GET.get("version", ""))
    if deck_id is None:
        return None
    try:
        deck = deck_get(deck_id=deck_id, include_archived=True)
        if not request_deck_visibility(request).can_view(deck):
            return None
        version = deck_version_get(deck=deck, number=number) if number is not None else deck.latest_version
    except (Deck.DoesNotExist, DeckVersion.DoesNotExist):
        return None
    return (deck, version) if version is not None else None


def _copy_initial(deck: Deck, version: DeckVersion) -> dict:
    """The builder's fields prefilled from another deck's version: "Copy to a new deck"."""
    pattern = commander_line_pattern(games[deck.game].commander_label)
    cards_text = "\n".join(line for line in version.decklist.splitlines() if not pattern.match(line)).strip() + "\n"
    suffix = " (copy)"
    return {
        "game": deck.game,
        "name": deck.name[: NAME_MAX_LENGTH - len(suffix)] + suffix,
        "pilot": version.pilot,
        "commander": version.commander,
        "decklist": cards_text,
    }


@login_required
@require_http_methods(["GET", "POST"])
def deck_edit(request: HttpRequest, deck_id: int) -> HttpResponse:
    """``/decks/<id>/edit/``: the owner changes the deck; new cards or pilot make a new version."""
    deck = _get_deck(deck_id, include_archived=False, request=request)
    if not can_edit_deck(request.user, deck):
        raise PermissionDenied("only the owner of a deck can edit it")
    latest = deck.latest_version
    label = games[deck.game].commander_label
    pattern = commander_line_pattern(label)
    cards_text = "\n".join(line for line in latest.decklist.splitlines() if not pattern.match(line)) + "\n"
    form = DeckForm(
        request.POST or None,
        fixed_game=deck.game,
        initial={"name": deck.name, "pilot": latest.pilot, "commander": latest.commander, "decklist": cards_text,
                 "ladder": deck.ladder},
    )
    if request.method == "POST":
        values = _deck_errors(form)
        if not form.errors:
            values.pop("game", None)
            try:
                version = deck_update(deck=deck, actor=request.user, ladder=form.cleaned_data.get("ladder", False),
                                      **values)
            except ValidationError as exc:
                _file_errors(form, exc)
            else:
                if version.number != latest.number:
                    messages.success(request, f"Saved as version {version.number}; version {latest.number} is kept.")
                else:
                    messages.info(request, f"Saved. Cards and pilot are unchanged: still version {version.number}.")
                return redirect(deck)
    return render(request, "decks/form.html", _builder_context(form, deck=deck))


def _file_errors(form: DeckForm, exc: ValidationError) -> None:
    for field, problems in exc.message_dict.items():
        for problem in problems:
            form.add_error(field if field in form.fields else None, problem)


# --------------------------------------------------------------------------- a deck


@dataclass(frozen=True)
class DeckEntry:
    """One line of a rendered decklist: the count and the card's face (None if the pool
    no longer has a card of that name)."""

    name: str
    count: int
    face: CardFace | None


@dataclass(frozen=True)
class VersionChange:
    """What a version changed compared with the one before it."""

    version: DeckVersion
    added: list[tuple[str, int]]
    removed: list[tuple[str, int]]
    commander: str | None
    pilot: str | None
    card_count: int


def _version_changes(versions: list[DeckVersion]) -> list[VersionChange]:
    """Each version (newest first) with its changes against the previous one."""
    changes = []
    ordered = sorted(versions, key=lambda v: v.number)
    previous = None
    for version in ordered:
        deck = version.to_engine()
        counts = deck.counts()
        added: list[tuple[str, int]] = []
        removed: list[tuple[str, int]] = []
        commander = pilot = None
        if previous is not None:
            before = previous.to_engine().counts()
            for name in sorted(set(counts) | set(before)):
                delta = counts.get(name, 0) - before.get(name, 0)
                if delta > 0:
                    added.append((name, delta))
                elif delta < 0:
                    removed.append((name, -delta))
            commander = version.commander if version.commander != previous.commander else None
            pilot = version.pilot if version.pilot != previous.pilot else None
        changes.append(VersionChange(version, added, removed, commander, pilot, deck.size))
        previous = version
    return list(reversed(changes))


def _get_deck(deck_id: int, *, include_archived: bool, request: HttpRequest | None = None) -> Deck:
    """The deck, or 404; with ``request``, also 404 (the same answer) when its viewer may
    not see it (``decks.permissions.DeckVisibility``)."""
    try:
        deck = deck_get(deck_id=deck_id, include_archived=include_archived)
    except Deck.DoesNotExist:
        raise Http404(f"no deck {deck_id}") from None
    if request is not None and not request_deck_visibility(request).can_view(deck):
        raise Http404(f"no deck {deck_id}")
    return deck


@require_safe
def deck_detail(request: HttpRequest, deck_id: int) -> HttpResponse:
    """``/decks/<id>/?version=N``: a version (the latest by default) as cards, and the history."""
    deck = _get_deck(deck_id, include_archived=True, request=request)
    latest = deck.latest_version
    if latest is None:
        raise Http404(f"deck {deck_id} has no version")
    version = latest
    wanted = parse_id(request.GET.get("version", ""))
    if wanted is not None and wanted != latest.number:
        try:
            version = deck_version_get(deck=deck, number=wanted)
        except DeckVersion.DoesNotExist:
            raise Http404(f"deck {deck_id} has no version {wanted}") from None
    decklist = version.to_engine()
    entries = [DeckEntry(name, count, card_by_name(game=deck.game, name=name)) for name, count in decklist.cards]
    groups: dict[str, list[DeckEntry]] = {}
    def order(e: DeckEntry) -> tuple:
        return (type_rank(e.face.type, game=deck.game) if e.face else (99, ""), e.name)

    for entry in sorted(entries, key=order):
        title = entry.face.type_title if entry.face else "Other"
        groups.setdefault(title, []).append(entry)
    return render(
        request,
        "decks/detail.html",
        {
            "deck": deck,
            "version": version,
            "is_latest": version.number == latest.number,
            "commander": card_by_name(game=deck.game, name=version.commander) if version.commander else None,
            "commander_label": games[deck.game].commander_label,
            "groups": [{"title": title, "entries": items, "count": sum(e.count for e in items)}
                       for title, items in groups.items()],
            "card_count": decklist.size,
            "history": _version_changes(list(deck_versions(deck=deck))),
            "can_edit": can_edit_deck(request.user, deck),
            "can_delete": can_delete_deck(request.user, deck),
            "matches": recent_matches(deck=deck.pk, visibility=request_deck_visibility(request)),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def deck_delete(request: HttpRequest, deck_id: int) -> HttpResponse:
    """``/decks/<id>/delete/``: GET asks, POST archives the deck (owner only)."""
    deck = _get_deck(deck_id, include_archived=False, request=request)
    if not can_delete_deck(request.user, deck):
        raise PermissionDenied("only the owner of a deck can delete it")
    if request.method == "POST":
        deck_archive(deck=deck, actor=request.user)
        messages.success(request, f"Deleted “{deck.name}”. Matches it played keep their replays.")
        return redirect("accounts:profile", username=request.user.get_username())
    return render(request, "decks/delete.html", {"deck": deck})
