"""The one application error: a request the platform refuses on purpose.

Services raise :class:`AppError` (or a subclass naming the case: ``LiveError``,
``tournaments.errors.Conflict``, ``TooManyOpenChallenges``) for a request that is well
formed but cannot be done now (entering an event twice, a move out of turn, too many open
challenges); nothing has been changed when it is raised. ``config.api.exception_handler``
turns it into the API's error shape with its ``status``, the one place that maps it to
HTTP; pages and sockets show its ``message``. Bad input stays Django's ``ValidationError``
(400, messages by field) and a refused permission Django's ``PermissionDenied`` (403).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class AppError(Exception):
    """``code``: stable and machine-readable; ``message``: a sentence for people;
    ``status``: the HTTP status the API answers with; ``fields``: the input fields it
    concerns, each with its messages (a 400 with fields is reported as a validation
    error of those fields)."""

    status: int = 409
    code: str = "conflict"
    default_message: str = "This conflicts with the current state; nothing was changed."

    def __init__(self, message: str | None = None, *, code: str | None = None, status: int | None = None,
                 fields: Mapping[str, Sequence[str]] | None = None):
        self.message = message or self.default_message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.fields = {name: list(messages) for name, messages in (fields or {}).items()}
        super().__init__(self.message)
