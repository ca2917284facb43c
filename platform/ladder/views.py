"""Ladder pages: the index, a leaderboard per game and pool, the activity page, and the
rating panels included in deck and player pages (``templatetags/ladder.py``)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import urlencode
from django.views.decorators.http import require_safe

from decks.models import GameName
from ladder import conf
from ladder.models import Pool
from ladder.selectors import (
    LeaderboardRows,
    ladder_activity,
    leaderboard,
    pool_counts,
    with_ranks,
)
from matches.models import Match

#: Rows per leaderboard page.
PER_PAGE = 25
#: Longest search text accepted.
Q_MAX = 100


@require_safe
def ladder_index(request: HttpRequest) -> HttpResponse:
    """``/ladder/``: each game with its top decks, and links to its leaderboards."""
    games = []
    for key, title in GameName.choices:
        top = with_ranks(leaderboard(game=key, pool=Pool.BOTS)[:5], start=0)
        games.append({"key": key, "title": title, "top": top, "counts": pool_counts(game=key)})
    return render(request, "ladder/index.html", {"games": games, "provisional_games": conf.provisional_games()})


@require_safe
def ladder_board(request: HttpRequest, game: str) -> HttpResponse:
    """``/ladder/<game>/?pool=bots|humans&q=&page=``: the leaderboard, 25 a page."""
    if game not in GameName.values:
        raise Http404(f"no game '{game}'")
    pool = request.GET.get("pool") or Pool.BOTS
    if pool not in Pool.values:
        pool = Pool.BOTS
    q = request.GET.get("q", "").strip()[:Q_MAX]
    paginator = Paginator(leaderboard(game=game, pool=pool, q=q), PER_PAGE) if q else Paginator(
        LeaderboardRows(game=game, pool=pool), PER_PAGE)
    page_obj = paginator.get_page(request.GET.get("page"))
    if q:  # pages of LeaderboardRows come ranked
        page_obj.object_list = with_ranks(page_obj.object_list, start=None)
    filters = {"pool": pool if pool != Pool.BOTS else "", "q": q}
    return render(request, "ladder/board.html", {
        "game": game,
        "game_title": GameName(game).label,
        "pool": pool,
        "pools": Pool.choices,
        "q": q,
        "page_obj": page_obj,
        "query": urlencode({k: v for k, v in filters.items() if v}),
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
