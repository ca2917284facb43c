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

A step that commits many effects at once (a live event's round: hundreds of notices and
tasks) runs inside :func:`batched`, which sends them together when it ends.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)

Event = dict[str, Any]

#: At most this many channel-layer sends of a batch are in flight at once (the Redis
#: layer's connection pool raises instead of waiting when it runs out).
BATCH_SENDS_IN_FLIGHT = 32

#: Per thread: the batch that :func:`batched` is gathering, if any.
_batch = threading.local()


class _Batch:
    def __init__(self) -> None:
        self.sends: list[tuple[str, Event]] = []
        self.tasks: list[tuple[str, list[Any], str, float | None]] = []
        #: Index in ``tasks`` -> the merge window of that task (``send_task(merge=...)``).
        self.mergeable: dict[int, float] = {}


@contextmanager
def batched() -> Iterator[None]:
    """Gather the :func:`send_task` and :func:`group_send` calls made in the block (the
    on-commit effects of a transaction that commits inside it) and send them when it
    ends: the group sends together from one event loop (one group's messages in their
    order), then every task through one broker connection, in order (a task due now sent
    again with the same arguments is sent once). A round of a live event announces hundreds of matches at once;
    one by one, each send opened an event loop or a connection of its own.

    Nested blocks join the outermost one. Nothing is lost if the block raises: what was
    gathered (effects of transactions that did commit) is still sent."""
    if getattr(_batch, "current", None) is not None:
        yield
        return
    batch = _batch.current = _Batch()
    try:
        yield
    finally:
        _batch.current = None
        _flush(batch)


def _flush(batch: _Batch) -> None:
    if batch.sends:
        try:
            async_to_sync(_send_all)(batch.sends)
        except Exception:  # the one place a channel-layer failure is caught
            logger.exception("could not broadcast a batch of %d messages", len(batch.sends))
    tasks = _merged(batch)
    if tasks:
        from config.celery import app

        try:
            with app.producer_or_acquire() as producer:
                for name, args, queue, countdown in tasks:
                    _send_task(app, name, args, queue, countdown, producer=producer)
        except Exception:  # the broker is down: each task is tried on its own, and logged
            logger.exception("could not open a broker connection for %d tasks", len(tasks))
            for name, args, queue, countdown in tasks:
                _send_task(app, name, args, queue, countdown)


def _merged(batch: _Batch) -> list[tuple[str, list[Any], str, float | None]]:
    """The batch's tasks in order, those sent with ``merge`` joined: tasks of one name and
    queue whose countdowns all lie within the window go as one message, due with the
    latest of them, whose one argument is the list of their arguments (in the place of the
    first of them). A task that joined no other is sent as it was asked."""
    if not batch.mergeable:
        return batch.tasks
    out: list[Any] = []
    open_groups: dict[tuple[str, str], dict[str, Any]] = {}
    for index, (name, args, queue, countdown) in enumerate(batch.tasks):
        window = batch.mergeable.get(index)
        if window is None:
            out.append((name, args, queue, countdown))
            continue
        due = countdown or 0.0
        group = open_groups.get((name, queue))
        if group is not None and max(group["last"], due) - min(group["first"], due) <= window:
            group["tasks"].append((args, countdown))
            group["first"], group["last"] = min(group["first"], due), max(group["last"], due)
            continue
        group = open_groups[(name, queue)] = {"name": name, "queue": queue, "tasks": [(args, countdown)],
                                              "first": due, "last": due}
        out.append(group)
    tasks = []
    for item in out:
        if not isinstance(item, dict):
            tasks.append(item)
        elif len(item["tasks"]) == 1:
            args, countdown = item["tasks"][0]
            tasks.append((item["name"], args, item["queue"], countdown))
        else:
            tasks.append((item["name"], [[args[0] for args, _ in item["tasks"]]], item["queue"], item["last"]))
    return tasks


async def _send_all(sends: Sequence[tuple[str, Event]]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    gate = asyncio.Semaphore(BATCH_SENDS_IN_FLIGHT)
    # Groups side by side; the messages of one group in the order they were sent (a
    # board's final view before the view that links its next game).
    by_group: dict[str, list[Event]] = {}
    for group, message in sends:
        by_group.setdefault(group, []).append(message)

    async def send(group: str, messages: list[Event]) -> None:
        for message in messages:
            try:
                async with gate:
                    await layer.group_send(group, message)
            except Exception:  # logged, and the group's next message is still sent
                logger.exception("could not broadcast to group %r", group)

    await asyncio.gather(*(send(group, messages) for group, messages in by_group.items()))


def _send_task(app, name: str, args: list[Any], queue: str, countdown: float | None, **options: Any) -> bool:
    try:
        app.send_task(name, args=args, queue=queue, countdown=countdown, **options)
    except Exception:  # the one place a broker failure is caught: see the module docstring
        logger.exception("could not enqueue %s%s on %s", name, tuple(args), queue)
        return False
    return True


def send_task(name: str, *, args: Sequence[Any], queue: str, countdown: float | None = None,
              merge: float | None = None) -> bool:
    """Send task ``name`` to ``queue`` now (at the end of a :func:`batched` block, inside
    one); False (logged) if the broker refused it.

    ``merge`` (seconds), for a task of one argument that also takes a list of them: inside
    a batch, such tasks of the same name and queue due within ``merge`` seconds of each
    other are sent as one message with the list (a round of a live event schedules one
    clock check per game, all due at the same moment)."""
    from config.celery import app

    batch = getattr(_batch, "current", None)
    if batch is not None:
        task = (name, list(args), queue, countdown)
        # The same task, with the same arguments, due now, is sent once per batch: every
        # game of a round decided at its limit asks its event to advance, and one message
        # does what a hundred would (the task reads the state when it runs).
        if countdown is not None or task not in batch.tasks:
            if merge is not None and len(task[1]) == 1:
                batch.mergeable[len(batch.tasks)] = merge
            batch.tasks.append(task)
        return True
    return _send_task(app, name, list(args), queue, countdown)


def group_send(group: str, event: Event | Callable[[], Event | None]) -> bool:
    """Send ``event`` to the channel-layer ``group`` now (at the end of a :func:`batched`
    block, inside one); False (logged) on failure.

    ``event`` may be a function that builds it (it reads the committed rows, at once,
    even in a batch); one that returns None sends nothing."""
    try:
        message = event() if callable(event) else event
        layer = get_channel_layer()
        if message is None or layer is None:
            return False
        batch = getattr(_batch, "current", None)
        if batch is not None:
            batch.sends.append((group, message))
            return True
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
