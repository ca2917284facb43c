"""Errors the tournament services raise besides Django's ``ValidationError`` (400) and
``PermissionDenied`` (403): a request that is well formed but conflicts with the event's
state (entering twice, a full or finished event) is a 409 in the API's error shape."""

from __future__ import annotations

from rest_framework import exceptions, status


class Conflict(exceptions.APIException):
    """The request conflicts with the tournament's state; nothing was changed."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "This conflicts with the tournament's state."
