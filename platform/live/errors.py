"""The error of the live app: a move or request that cannot be done, with a stable code."""

from __future__ import annotations

from web.apperrors import AppError


class LiveError(AppError):
    """A move or request that cannot be done; ``code`` is stable, ``message`` for people.

    ``status`` is the HTTP status an API answers with; a 400 is about the ``action``.
    """

    def __init__(self, code: str, message: str, *, status: int = 409):
        super().__init__(message, code=code, status=status, fields={"action": [message]} if status == 400 else None)
