"""Rate limits: how many requests a client may make, per scope, counted in the cache.

The counts live in Django's default cache (local memory when embedded, Redis under
``REDIS_URL``, so that every web process shares them). The rates are
``settings.THROTTLE_RATES`` (``"N/s"``, ``"N/min"``, ``"N/hour"``, ``"N/day"``; None: no
limit), read at each request, set from the ``THROTTLE_*_RATE`` variables:

- ``register``: account creations per client address (API and sign-up form);
- ``login``: token requests and log-in attempts per client address;
- ``login_username``: token requests and log-in attempts per submitted username, from
  whatever address: guessing one player's password from many addresses is limited too;
- ``write``: API writes (POST, PUT, PATCH, DELETE) per player, or per address when anonymous.

The API answers a refused request with 429 in its error shape and ``Retry-After``; the
HTML forms with the styled 429 page (web.errors.too_many_requests).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

from django.conf import settings
from django.http import HttpRequest
from rest_framework.permissions import SAFE_METHODS
from rest_framework.throttling import SimpleRateThrottle


class SettingsRateThrottle(SimpleRateThrottle):
    """A throttle whose rate is ``settings.THROTTLE_RATES[scope]``, read per request."""

    def get_rate(self) -> str | None:
        return (getattr(settings, "THROTTLE_RATES", None) or {}).get(self.scope)

    def key_for(self, ident: str) -> str:
        return self.cache_format % {"scope": self.scope, "ident": ident}


class AddressThrottle(SettingsRateThrottle):
    """Counts every request of the view per client address."""

    def get_cache_key(self, request, view) -> str | None:
        return self.key_for(self.get_ident(request))


class RegisterThrottle(AddressThrottle):
    scope = "register"


class LoginThrottle(AddressThrottle):
    scope = "login"


class LoginUsernameThrottle(SettingsRateThrottle):
    """Counts log-in attempts per submitted username (case-insensitive), whatever the address."""

    scope = "login_username"

    def get_cache_key(self, request, view) -> str | None:
        username = submitted_username(request)
        if not username:
            return None
        return self.key_for(hashlib.sha256(username.casefold().encode("utf-8", "replace")).hexdigest()[:32])


class WriteThrottle(SettingsRateThrottle):
    """Counts the API's writes per player (per address for an anonymous client); reads are free."""

    scope = "write"

    def get_cache_key(self, request, view) -> str | None:
        if request.method in SAFE_METHODS:
            return None
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            return self.key_for(f"user-{user.pk}")
        return self.key_for(f"addr-{self.get_ident(request)}")


def submitted_username(request) -> str:
    """The ``username`` field of a form or JSON body ("" when there is none)."""
    data = getattr(request, "data", None) if not isinstance(request, HttpRequest) else request.POST
    if not isinstance(data, Mapping):
        return ""
    value = data.get("username")
    return value.strip()[:200] if isinstance(value, str) else ""


def throttle_wait(request: HttpRequest, throttles: Iterable[SimpleRateThrottle]) -> float | None:
    """For a Django view: count the request in every throttle; None when all allow it,
    otherwise the seconds until the longest refusal ends (at least 1)."""
    waits = [throttle.wait() for throttle in throttles if not throttle.allow_request(request, None)]
    if not waits:
        return None
    return max([w for w in waits if w is not None] or [1.0])
