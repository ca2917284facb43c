"""Guide pages: the rules of each game, each game's glossary, the glossary as JSON for the
glossary script, and the status page (services and the worker heartbeat)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_safe

from guide.selectors import glossary, glossary_index, glossary_sorted, rules_page
from web.game_files import template_part
from web.games import GAME_TITLES
from web.health import heartbeat_status


def _game_or_404(game: str) -> str:
    if game not in GAME_TITLES:
        raise Http404(f"there is no game '{game}'; the games are {', '.join(GAME_TITLES)}")
    return game


def _game_part(game: str, part: str) -> str | None:
    """The template of a game's own ``part`` of the rules pages (``<game>/guide/<part>.html``
    in its package's ``site/templates/``: its one-line blurb, its lead, its board diagram),
    or None for a game without one: a game added to the engine gets its pages without
    them, and no other game's."""
    return template_part(game, f"guide/{part}.html")


@require_safe
def rules_index(request: HttpRequest) -> HttpResponse:
    """``/rules/``: every game, with a link to each rules page and glossary."""
    games = [(key, title, _game_part(key, "blurb")) for key, title in GAME_TITLES.items()]
    return render(request, "guide/index.html", {"games": games})


@require_safe
def rules(request: HttpRequest, game: str) -> HttpResponse:
    """``/rules/<game>/``: how to play, with a board diagram and a table of contents."""
    page = rules_page(game=_game_or_404(game))
    return render(
        request,
        "guide/rules.html",
        {"game": game, "game_title": GAME_TITLES[game], "page": page,
         "keywords": [t for t in glossary(game=game) if t.kind in ("keyword", "status")],
         "parts": {"lead": _game_part(game, "lead"), "board": _game_part(game, "board")}},
    )


@require_safe
def glossary_page(request: HttpRequest, game: str) -> HttpResponse:
    """``/rules/<game>/glossary/``: every term of the game, alphabetically, each with an anchor."""
    terms = glossary_sorted(game=_game_or_404(game))
    letters: dict[str, list] = {}
    for term in terms:
        letters.setdefault(term.term[0].upper(), []).append(term)
    return render(
        request,
        "guide/glossary.html",
        {"game": game, "game_title": GAME_TITLES[game], "letters": letters, "count": len(terms)},
    )


@require_safe
@cache_control(public=True, max_age=300)
def glossary_json(request: HttpRequest) -> JsonResponse:
    """``/rules/glossary.json``: every game's glossary for ``static/js/glossary.js``."""
    return JsonResponse(glossary_index())


@never_cache
@require_safe
def status(request: HttpRequest) -> HttpResponse:
    """``/status/``: the services (asked live by the page from /healthz) and the last worker heartbeat."""
    return render(request, "guide/status.html", {"heartbeat": heartbeat_status()})
