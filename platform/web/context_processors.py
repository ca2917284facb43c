"""Template context shared by every page."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse

#: The site's sections in navigation order, with the URL name of each section's index.
#: A section whose app is not installed yet shows in the navigation as "soon"; it becomes
#: a link by itself once its app defines the URL name (namespace ``cards``, name ``index``...).
NAV_SECTIONS: tuple[tuple[str, str], ...] = (
    ("Cards", "cards:index"),
    ("Decks", "decks:index"),
    ("Matches", "matches:index"),
    ("Tournaments", "tournaments:index"),
    ("Ladder", "ladder:index"),
)


def site_navigation(request: HttpRequest) -> dict:
    """``nav_sections``: one ``{"label", "url", "active"}`` per section; ``url`` is None
    for a section that is not open yet."""
    items = []
    for label, url_name in NAV_SECTIONS:
        try:
            url = reverse(url_name)
        except NoReverseMatch:
            url = None
        items.append({"label": label, "url": url, "active": bool(url) and request.path.startswith(url)})
    return {"nav_sections": items}
