"""The one way a service sends a task or a broadcast: after the transaction commits.

A service writes rows, then asks for its side effects from ``transaction.on_commit``
(:func:`broadcast_on_commit` does it for a broadcast): they run only once the rows are
committed (what a worker or a page then reads is what was written), and never if the
transaction rolls back. The apps name their task helpers (``matches.services._enqueue``,
``tournaments.services.enqueue``, ``live.services._enqueue``) so that tests can record what
would be sent; each is one call of :func:`send_task`.

A broker or channel layer that is down must not undo or fail a write that is already
committed, so :func:`send_task` and :func:`group_send` log a failure instead of raising
it: the repair tasks (the matches sweeper, the tournaments and live ticks) redo what a
lost task message would have done, and a page re-reads its state on its next update or
reload. This module is the only place that catches those failures.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)

Event = dict[str, Any]


def send_task(name: str, *, args: Sequence[Any], queue: str, countdown: float | None = None) -> bool:
    """Send task ``name`` to ``queue`` now; False (logged) if the broker refused it."""
    from config.celery import app

    try:
        app.send_task(name, args=list(args), queue=queue, countdown=countdown)
    except Exception:  # the one place a broker failure is caught: see the module docstring
        logger.exception("could not enqueue %s%s on %s", name, tuple(args), queue)
        return False
    return True


def group_send(group: str, event: Event | Callable[[], Event | None]) -> bool:
    """Send ``event`` to the channel-layer ``group`` now; False (logged) on failure.

    ``event`` may be a function that builds it (it reads the committed rows); one that
    returns None sends nothing."""
    try:
        message = event() if callable(event) else event
        layer = get_channel_layer()
        if message is None or layer is None:
            return False
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # the one place a channel-layer failure is caught
        logger.exception("could not broadcast to group %r", group)
        return False
    return True


def built(build: Callable[[], Event | None], what: str) -> Event | None:
    """``build()``, or None (logged) if it raises: an event built after commit from the
    committed rows must not fail the write it reports when building it fails."""
    try:
        return build()
    except Exception:  # the one place a failed event build is caught
        logger.exception("could not build the broadcast of %s", what)
        return None


def broadcast_on_commit(group: str, event: Event | Callable[[], Event | None]) -> None:
    """:func:`group_send` once the current transaction commits."""
    transaction.on_commit(lambda: group_send(group, event))
