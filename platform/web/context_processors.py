"""Template context shared by every page."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse

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
)


def site_navigation(request: HttpRequest) -> dict:
    """``nav_sections``: one ``{"label", "url", "active"}`` per section whose URL exists."""
    items = []
    for label, url_name in NAV_SECTIONS:
        try:
            url = reverse(url_name)
        except NoReverseMatch:
            continue
        items.append({"label": label, "url": url, "active": request.path.startswith(url)})
    return {"nav_sections": items}
