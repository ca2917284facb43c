"""Ladder pages: the index, a leaderboard per game and pool, the activity page, and the
rating panels included in deck and player pages (``templatetags/ladder.py``)."""

from __future__ import annotations

import functools
import hashlib

from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import get_script_prefix, reverse
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe

from decks.permissions import deck_visibility
from ladder import conf
from ladder.models import Pool, Rating
from ladder.selectors import (
    LeaderboardRows,
    ladder_activity,
    leaderboard,
    pool_counts,
    with_ranks,
)
from ladder.templatetags.ladder import form_badges, percent, trend_arrow
from matches.models import Match
from web.games import game_choices, game_names, game_title

#: Rows per leaderboard page.
PER_PAGE = 25
#: Longest search text accepted.
Q_MAX = 100


@require_safe
def ladder_index(request: HttpRequest) -> HttpResponse:
    """``/ladder/``: each game with its top decks, and links to its leaderboards."""
    games = []
    for key, title in game_choices():
        top = with_ranks(leaderboard(game=key, pool=Pool.BOTS)[:5], start=0)
        games.append({"key": key, "title": title, "top": top, "counts": pool_counts(game=key)})
    return render(request, "ladder/index.html", {"games": games, "provisional_games": conf.provisional_games()})


def board_cache_key(kind: str, game: str, pool: str, q: str, page: object, *extra: object) -> str:
    """The shared-cache key of one leaderboard page: ``kind`` (the HTML table or the API's
    rows), game, pool, page number (anything but a whole number is page 1, as the
    paginators read it) and the search, normalized (trimmed; hashed, so any text makes
    a valid key)."""
    try:
        number = int(str(page))
    except (TypeError, ValueError):
        number = 1
    digest = hashlib.blake2b(q.encode(), digest_size=12).hexdigest() if q else "-"
    tail = ":".join(str(e) for e in extra)
    return f"ladder:board:{kind}:{game}:{pool}:{number}:{digest}:{tail}"


@functools.cache
def _deck_url(prefix: str) -> str:
    """A deck page's address with ``{}`` for its id: ``reverse()`` for each of a page's
    rows was a seventh of a leaderboard page's time."""
    sentinel = 987654321
    return reverse("decks:detail", args=[sentinel]).replace(str(sentinel), "{}")


@functools.lru_cache(maxsize=4096)
def _profile_url(prefix: str, username: str) -> str:
    return reverse("accounts:profile", args=[username])


def board_row(rating: Rating, provisional_games: int) -> dict:
    """One leaderboard row as the strings the table shows (no lookups left for the template)."""
    deck = rating.deck if rating.deck_id else None
    win_rate = rating.win_rate
    prefix = get_script_prefix()
    hidden = deck_visibility(None, deck_ids=[deck.pk]).label(deck) if deck is not None else ""
    if deck is not None:
        owner = deck.owner.username
        # The board is the same for everyone: a deck hidden by an event shows its label only.
        name, url = (hidden, "") if hidden else (deck.name, _deck_url(prefix).format(deck.pk))
        owner_url = _profile_url(prefix, owner)
    else:
        owner, owner_url = "", ""
        name = rating.player.username
        url = _profile_url(prefix, name)
    return {
        "rank": rating.rank, "name": name, "url": url, "owner": owner, "owner_url": owner_url,
        "on_ladder": bool(deck is not None and deck.ladder),
        "rating": f"{rating.ordinal:.1f}", "mu": f"{rating.mu:.2f}", "sigma2": f"{rating.sigma:.2f}",
        "sigma": f"{rating.sigma:.1f}", "provisional": rating.games < provisional_games, "games": rating.games,
        "win_rate": percent(win_rate), "form": form_badges(rating.form), "trend": trend_arrow(rating.trend),
    }


def _board_table(game: str, pool: str, q: str, page: str | None) -> str:
    """The leaderboard's table, its count line and its page links, rendered."""
    paginator = Paginator(leaderboard(game=game, pool=pool, q=q), PER_PAGE) if q else Paginator(
        LeaderboardRows(game=game, pool=pool), PER_PAGE)
    page_obj = paginator.get_page(page)
    rows = page_obj.object_list
    if q:  # pages of LeaderboardRows come ranked
        rows = with_ranks(rows, start=None)
    provisional_games = conf.provisional_games()
    filters = {"pool": pool if pool != Pool.BOTS else "", "q": q}
    return render_to_string("ladder/_board_table.html", {
        "game_title": game_title(game),
        "pool": pool,
        "q": q,
        "page_obj": page_obj,
        "rows": [board_row(r, provisional_games) for r in rows],
        "query": urlencode({k: v for k, v in filters.items() if v}),
        "provisional_games": provisional_games,
    })


@require_safe
def ladder_board(request: HttpRequest, game: str) -> HttpResponse:
    """``/ladder/<game>/?pool=bots|humans&q=&page=``: the leaderboard, 25 a page.

    The table (with its count and page links) is the same for every visitor: it is
    kept ``LADDER_CACHE_SECONDS`` in the shared cache (:func:`board_cache_key`)."""
    if game not in game_names():
        raise Http404(f"no game '{game}'")
    pool = request.GET.get("pool") or Pool.BOTS
    if pool not in Pool.values:
        pool = Pool.BOTS
    q = request.GET.get("q", "").strip()[:Q_MAX]
    page = request.GET.get("page")
    seconds = conf.cache_seconds()
    key = board_cache_key("html", game, pool, q, page)
    table = cache.get(key) if seconds else None
    if table is None:
        table = _board_table(game, pool, q, page)
        if seconds:
            cache.set(key, table, seconds)
    return render(request, "ladder/board.html", {
        "game": game,
        "game_title": game_title(game),
        "pool": pool,
        "pools": Pool.choices,
        "q": q,
        "table": mark_safe(table),  # rendered (and escaped) by _board_table
        "provisional_games": conf.provisional_games(),
    })


@require_safe
def ladder_activity_page(request: HttpRequest) -> HttpResponse:
    """``/ladder/activity/``: matches in flight, matches in the last hour, queue depths."""
    activity = ladder_activity()
    return render(request, "ladder/activity.html", {
        "activity": activity,
        "kinds": [(k, label, activity.in_flight[k], activity.last_hour[k]) for k, label in
                  Match.Kind.choices],
        "max_in_flight": conf.max_in_flight(),
    })
