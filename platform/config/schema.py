"""The OpenAPI schema's generator: drf-spectacular's, with every error status documented.

Its own module, apart from config/api.py: drf-spectacular's generator imports DRF's
views, which read the parser settings that name config/api.py.
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema as DrfSpectacularAutoSchema

from config.api import ErrorSerializer


class AutoSchema(DrfSpectacularAutoSchema):
    """drf-spectacular's schema, with the error statuses that the shared plumbing can
    answer on each operation documented in the error shape, where they apply:

    - 400 everywhere (a NUL byte in the address, a malformed body, an invalid field);
    - 401 where the view authenticates (a wrong ``Authorization`` header is refused even on reads);
    - 403 on writes of authenticated views (permissions, CSRF for session clients);
    - 404 where the path names an object, and on paginated lists (a page past the end);
    - 413 and 415 where the operation takes a body (size limit, media type);
    - 429 where a rate limit counts the request (writes, registration, tokens).

    A 405 answers a method that the path does not have, so it belongs to no operation.
    Views declare other statuses themselves (``@extend_schema(responses=...)``); those win.
    """

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code, description in self._error_statuses():
            if code not in responses:
                response = self._get_response_for_code(ErrorSerializer, code, direction=direction)
                response["description"] = description
                responses[code] = response
        return responses

    def _error_statuses(self) -> list[tuple[str, str]]:
        unsafe = self.method not in ("GET", "HEAD", "OPTIONS")
        authenticates = bool(getattr(self.view, "authentication_classes", None))
        statuses = [("400", "Malformed request: invalid input, malformed body, or a NUL byte in the address")]
        if authenticates:
            statuses.append(("401", "Not authenticated, or the credentials are wrong"))
        if unsafe and authenticates:
            statuses.append(("403", "Not allowed for this player"))
        if "{" in self.path or self._is_list_view():
            statuses.append(("404", "No such object, or a page past the end"))
        if unsafe and self.method != "DELETE":
            statuses.append(("413", "The body is larger than the API accepts"))
            statuses.append(("415", "The body's media type is not JSON, form or multipart"))
        throttles = self.view.get_throttles() if hasattr(self.view, "get_throttles") else []
        if unsafe and throttles:
            statuses.append(("429", "Too many requests; retry after the seconds in Retry-After"))
        return statuses


class BotTokenScheme(OpenApiAuthenticationExtension):
    """The schema's name for a bot's token (``Authorization: Bearer bot_...``,
    docs/bots-api.md), so that every operation lists it beside the player's token."""

    target_class = "accounts.authentication.BotTokenAuthentication"
    name = "botToken"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "bearerFormat": "bot_...",
                "description": "A bot's token: acts as the bot's own account (docs/bots-api.md)"}
