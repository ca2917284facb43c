"""Template context of the live app on every page: the challenges waiting for an answer.

``live_notice`` is there for a signed-in player on every page but the lobby (``/live/``,
which lists the challenges itself). It is read only when a template uses it (the site's
base template does, ``live/_notice.html``), with at most two small queries.
"""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from live import selectors


def live_notice(request: HttpRequest) -> dict:
    """``live_notice``: ``{"count", "latest"}`` of ``selectors.challenges_waiting``."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    resolved = getattr(request, "resolver_match", None)
    if resolved is not None and resolved.view_name == "live:index":
        return {}
    return {"live_notice": SimpleLazyObject(lambda: selectors.challenges_waiting(user=user))}
