"""Card pages: browse and search both pools, and one page per card."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from decks.cards.art import card_art_svg
from decks.cards.selectors import GAME_TITLES, card_get, card_search, card_types
from engine import games
from guide.selectors import terms_used_by

#: Card faces per page of the browser.
CARDS_PER_PAGE = 24


@require_safe
def card_index(request: HttpRequest) -> HttpResponse:
    """``/cards/?game=&type=&q=&page=``: the card faces matching the filters, paginated."""
    game = request.GET.get("game", "")
    game = game if game in GAME_TITLES else ""
    card_type = request.GET.get("type", "").strip()
    q = request.GET.get("q", "").strip()[:100]
    types = card_types(game=game or None)
    if card_type not in {key for key, _ in types}:
        card_type = ""
    cards = card_search(game=game or None, q=q or None, card_type=card_type or None)
    page_obj = Paginator(cards, CARDS_PER_PAGE).get_page(request.GET.get("page"))
    filters = {"game": game, "type": card_type, "q": q}
    return render(
        request,
        "cards/index.html",
        {
            "page_obj": page_obj,
            "filters": filters,
            "query": urlencode({k: v for k, v in filters.items() if v}),
            "games": list(GAME_TITLES.items()),
            "types": types,
        },
    )


#: How long browsers and proxies may keep a card's picture: a year (its URL carries a
#: version of the data it is drawn from, and the picture is drawn the same way every time).
ART_MAX_AGE = 365 * 24 * 3600


@require_safe
@cache_control(public=True, max_age=ART_MAX_AGE, immutable=True)
def card_art(request: HttpRequest, game: str, card_id: str) -> HttpResponse:
    """``/cards/<game>/<id>/art.svg``: the card's generated illustration."""
    card = card_get(game=game, card_id=card_id)
    if card is None:
        raise Http404(f"no {game} card '{card_id}'")
    response = HttpResponse(card_art_svg(game=game, data=card.data), content_type="image/svg+xml")
    response["X-Content-Type-Options"] = "nosniff"
    return response


@require_safe
def card_detail(request: HttpRequest, game: str, card_id: str) -> HttpResponse:
    """``/cards/<game>/<id>/``: the card face, its numbers and the starter decks using it."""
    card = card_get(game=game, card_id=card_id)
    if card is None:
        raise Http404(f"no {game} card '{card_id}'")
    engine_game = games[game]
    starters = []
    for deck_name, decklist in engine_game.starter_decks().items():
        if decklist.commander == card.name:
            starters.append((deck_name, 0))
        elif card.name in decklist.counts():
            starters.append((deck_name, decklist.counts()[card.name]))
    return render(
        request,
        "cards/detail.html",
        {
            "card": card,
            "commander_label": engine_game.commander_label,
            "starter_decks": starters,
            "prepare": card.data.get("prepare"),
            "rules_terms": terms_used_by(game=game, card_type=card.type, keywords=card.keywords, text=card.text),
        },
    )


#: How long a game's card texts may be kept: an hour (they change only with an engine
#: release, and the live board asks once per page).
TEXTS_MAX_AGE = 3600


@require_safe
@cache_control(public=True, max_age=TEXTS_MAX_AGE)
def card_texts(request: HttpRequest, game: str) -> JsonResponse:
    """``/cards/<game>/text.json``: every card of one game's public pool as the live board
    shows it (name, type line, costs, stats, keywords, rules text, art URL, page URL),
    keyed by card id. Bounded by the pool (about 80 cards); 404 for an unknown game."""
    if game not in GAME_TITLES:
        raise Http404(f"no game '{game}'; choose one of: {', '.join(GAME_TITLES)}")
    cards = {
        face.id: {
            "id": face.id, "name": face.name, "type": face.type, "type_line": face.type_line,
            "costs": [{"key": f.key, "label": f.label, "value": f.display} for f in face.costs],
            "stats": [{"key": f.key, "label": f.label, "short": f.short, "value": f.display} for f in face.stats],
            "keywords": list(face.keywords), "text": face.text, "art": face.art_url,
            "url": reverse("cards:detail", args=[face.game, face.id]),
        }
        for face in card_search(game=game)
    }
    return JsonResponse({"game": game, "cards": cards})
