"""Template context shared by every page."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse

from web.game_files import board_script, stylesheet
from web.games import GAME_TITLES, get_game

#: The site's sections in navigation order, with the URL name of each section's index.
#: A section whose app is not installed has no URL name yet and is left out of the
#: navigation: an entry is a working link or it is absent.
NAV_SECTIONS: tuple[tuple[str, str], ...] = (
    ("Rules", "guide:index"),
    ("Cards", "cards:index"),
    ("Decks", "decks:index"),
    ("Matches", "matches:index"),
    ("Tournaments", "tournaments:index"),
    ("Ladder", "ladder:index"),
    ("Meta", "meta:index"),
)


#: How many games the home page says the site has, in words.
_COUNT_WORDS = {1: "One", 2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six"}


def site_navigation(request: HttpRequest) -> dict:
    """``nav_sections``: one ``{"label", "url", "active"}`` per section whose URL exists;
    and the games, from the registry, as every page names them: ``site_name``
    (``A, B & C``), ``site_games`` (``(key, title)``), ``site_games_text``
    (``A, B and C``), ``site_games_count`` (``Three``), ``site_commanders``
    (``(title, commander label)``), ``game_stylesheets``
    (each game's own styles, which base.html loads on every page: a game's colours show
    wherever its name does) and ``game_board_scripts`` (key -> board renderer)."""
    items = []
    for label, url_name in NAV_SECTIONS:
        try:
            url = reverse(url_name)
        except NoReverseMatch:
            continue
        items.append({"label": label, "url": url, "active": request.path.startswith(url)})
    return {"nav_sections": items, **games_context()}


def _joined(titles: list[str], last: str) -> str:
    return f"{', '.join(titles[:-1])}{last}{titles[-1]}" if len(titles) > 1 else "".join(titles)


def games_context() -> dict:
    """The registered games as every page names them (see :func:`site_navigation`)."""
    games = list(GAME_TITLES.items())
    titles = [title for _key, title in games]
    return {
        "site_name": _joined(titles, " & "),
        "site_games": games,
        "site_games_text": _joined(titles, " and "),
        "site_games_count": _COUNT_WORDS.get(len(games), str(len(games))),
        "site_commanders": [(title, get_game(key).commander_label) for key, title in games],
        "game_stylesheets": [path for key, _title in games if (path := stylesheet(key))],
        "game_board_scripts": {key: path for key, _title in games if (path := board_script(key))},
    }
