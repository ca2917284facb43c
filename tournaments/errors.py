"""Errors the tournament services raise besides Django's ``ValidationError`` (400) and
``PermissionDenied`` (403): a request that is well formed but conflicts with the event's
state (entering twice, a full or finished event) is a 409 in the API's error shape
(``web.apperrors.AppError``)."""

from __future__ import annotations

from web.apperrors import AppError


class Conflict(AppError):
    """The request conflicts with the tournament's state; nothing was changed."""

    default_message = "This conflicts with the tournament's state."
