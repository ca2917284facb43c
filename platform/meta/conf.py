"""Settings of the metagame, read when used (Django settings first, then the environment)."""

from __future__ import annotations

import os

from django.conf import settings


def cache_seconds() -> float:
    """How long a page's summed figures stay in the shared cache (``META_CACHE_SECONDS``,
    default 600; 0: never kept). They are kept under the tick's versions of every source,
    so a tick that counts something makes the next page sum them again at once."""
    value = getattr(settings, "META_CACHE_SECONDS", None)
    if value is None:
        value = os.environ.get("META_CACHE_SECONDS", "600")
    return max(0.0, float(value))
