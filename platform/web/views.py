"""HTTP views of the site app: the home page, the health endpoint and the published docs."""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any

from django.apps import apps
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from accounts.selectors import recent_matches
from web.game_files import template_part
from web.games import GAME_TITLES
from web.health import service_report

logger = logging.getLogger(__name__)

#: Finished matches the home page offers to watch.
HOME_MATCHES = 6
#: Upcoming tournaments and ladder places the home page lists, once those apps exist.
HOME_TOURNAMENTS = 4
HOME_LADDER_PLACES = 5
#: Live matches the home page lists as being played now.
HOME_LIVE = 5


def _optional_section(app: str, build: Callable[[Any], dict]) -> dict | None:
    """``build(<app>.selectors)`` when the app is installed; None when it is not, or when
    its selectors are missing or fail (logged): another app's section never breaks the
    home page."""
    if not apps.is_installed(app):
        return None
    try:
        return build(import_module(f"{app}.selectors"))
    except Exception:
        logger.exception("home page: the %s section failed and is left out", app)
        return None


def _upcoming_tournaments(selectors: Any) -> dict:
    rows = selectors.tournament_list(state="open").order_by("starts_at", "id")[:HOME_TOURNAMENTS]
    return {
        "url": reverse("tournaments:index"),
        "rows": [
            {"name": t.name, "url": t.get_absolute_url(), "game": t.get_game_display(), "starts": t.starts_at}
            for t in rows
        ],
    }


def _ladder_tops(selectors: Any) -> dict:
    tops = []
    for game, title in GAME_TITLES.items():
        rows = selectors.leaderboard(game=game, pool="bots")[:HOME_LADDER_PLACES]
        tops.append(
            {
                "game": game,
                "title": title,
                "url": reverse("ladder:board", args=[game]),
                "rows": [
                    {
                        "name": r.deck.name,
                        "owner": r.deck.owner.get_username(),
                        "rating": f"{r.ordinal:.1f}",
                        "url": r.deck.get_absolute_url(),
                    }
                    for r in rows
                ],
            }
        )
    return {"url": reverse("ladder:index"), "boards": tops}


def _live_now(selectors: Any) -> dict:
    rows = []
    for live in selectors.live_now(HOME_LIVE):
        names = [seat.user.get_username() if seat.user else f"{seat.bot} bot"
                 for seat in sorted(live.seats.all(), key=lambda seat: seat.seat)]
        rows.append({"url": live.get_absolute_url(), "players": " vs ".join(names),
                     "game": GAME_TITLES.get(live.game, live.game)})
    return {"url": reverse("live:index"), "rows": rows}


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """The landing page: what the site is for, where to start, what to watch, and (once
    their apps are installed) live matches, upcoming tournaments and the top of each ladder."""
    return render(
        request,
        "web/home.html",
        {
            "home_games": [(key, title, template_part(key, "home.html")) for key, title in GAME_TITLES.items()],
            "recent": recent_matches(status="done", limit=HOME_MATCHES),
            "tournaments": _optional_section("tournaments", _upcoming_tournaments),
            "ladders": _optional_section("ladder", _ladder_tops),
            "live": _optional_section("live", _live_now),
        },
    )


@never_cache
@require_safe
async def healthz(request: HttpRequest) -> JsonResponse:
    """``{"status": "ok", "database": "ok", "broker": "ok", ...}``; 503 when a service is down."""
    report, healthy = await service_report()
    return JsonResponse(report, status=200 if healthy else 503)


#: The project's documentation files that the site publishes at ``/docs/<name>.md``.
DOCS_DIR = Path(settings.BASE_DIR) / "docs"


@require_safe
def project_doc(request: HttpRequest, name: str) -> HttpResponse:
    """``/docs/<name>.md``: one of the project's documentation files (docs/*.md) as plain
    text, so that the API docs can link the API guide and the security policy."""
    path = DOCS_DIR / f"{name}.md"
    if not name.replace("-", "").replace("_", "").isalnum() or not path.is_file():
        raise Http404(f"no document '{name}'")
    return HttpResponse(path.read_text(encoding="utf-8"), content_type="text/plain; charset=utf-8")
