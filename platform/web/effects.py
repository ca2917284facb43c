"""The one way a service sends a task or a broadcast: after the transaction commits.

A service writes rows, then asks for its side effects from ``transaction.on_commit``
(:func:`broadcast_on_commit` does it for a broadcast): they run only once the rows are
committed (what a worker or a page then reads is what was written), and never if the
transaction rolls back. Every task and every channel-layer message of the platform leaves
through this module; no app keeps a pipeline of its own.

A broker or channel layer that is down must not undo or fail a write that is already
committed, so :func:`send_task` and :func:`group_send` log a failure instead of raising
it: the repair tasks (the matches sweeper, the tournaments and live ticks) redo what a
lost task message would have done, and a page re-reads its state on its next update or
reload. This module is the only place that catches those failures.

A step that commits many effects at once (a live event's round: hundreds of notices and
tasks) runs inside :func:`batched`, which sends them together when it ends. A step whose
group sends its caller sends itself, from an event loop (a move made from a socket),
runs inside :func:`collecting` and hands what it gathered to :func:`asend`, which sends
many at once with the bound of :func:`layer_gate`. Services ask for their effects with
:func:`send_task_on_commit` and :func:`broadcast_on_commit`; a step that will do what an
effect asks for itself holds it back with :func:`withholding`.

Tests record what would be sent with :func:`recording` (the ``effects_recorded`` fixture):
while it is active, nothing it records is sent, in any thread of the process (everything,
or only the tasks it names).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from config.celery import app

logger = logging.getLogger(__name__)

Event = dict[str, Any]

#: At most this many channel-layer calls of one event loop are in flight at once (group
#: sends of a batch or of :func:`asend`, and the sockets' group joins and leaves): the Redis
#: layer's connection pool (redis-py: 100 connections) raises instead of waiting when it
#: runs out.
SENDS_IN_FLIGHT = 32
_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = weakref.WeakKeyDictionary()

#: Per thread: the batch that :func:`batched` is gathering, if any; the group sends that
#: :func:`collecting` gathers, if any; the tasks :func:`withholding` holds back.
_batch = threading.local()
_collected = threading.local()
_withheld = threading.local()


@dataclass
class Recording:
    """What would have been sent while :func:`recording` was active, in order: tasks as
    ``(name, args, queue, countdown)``, group sends as ``(group, message)``.

    ``only_tasks`` (None: every task) and ``keeps_sends`` say what it records (the
    arguments of :func:`recording`)."""

    tasks: list[tuple[str, list[Any], str, float | None]] = field(default_factory=list)
    sends: list[tuple[str, Event]] = field(default_factory=list)
    only_tasks: frozenset[str] | None = None
    keeps_sends: bool = True

    def records_task(self, name: str) -> bool:
        return self.only_tasks is None or name in self.only_tasks

    def task_names(self) -> list[str]:
        return [name for name, _, _, _ in self.tasks]

    def tasks_named(self, name: str) -> list[list[Any]]:
        """The arguments of every task ``name`` recorded, in order."""
        return [args for task, args, _, _ in self.tasks if task == name]

    def for_group(self, group: str) -> list[Event]:
        return [message for g, message in self.sends if g == group]


#: The active recordings, innermost last (process-wide: a move run on a pool thread is
#: recorded as well as one run on the test's own thread).
_recordings: list[Recording] = []


@contextmanager
def recording(*, tasks: Collection[str] | None = None, sends: bool = True) -> Iterator[Recording]:
    """Record, instead of sending, every task and group send of the process while in the
    block (:func:`send_task`, :func:`group_send`, :func:`asend`; before any batching, so
    each is recorded as it was asked for). For tests.

    ``tasks`` narrows it to the tasks of those names, and ``sends=False`` leaves out the
    group sends: what it does not record is sent as usual (or recorded by an enclosing
    recording that does). A test holds back the ``run_match`` of the match it creates,
    to send it itself to a worker of its own, while the match page still hears every
    broadcast."""
    record = Recording(only_tasks=None if tasks is None else frozenset(tasks), keeps_sends=sends)
    _recordings.append(record)
    try:
        yield record
    finally:
        _recordings.remove(record)


def _recorder(*, task: str | None = None) -> Recording | None:
    """The innermost active recording that records task ``task`` (None: group sends)."""
    for record in reversed(_recordings):
        if record.records_task(task) if task is not None else record.keeps_sends:
            return record
    return None


def layer_gate() -> asyncio.Semaphore:
    """The running loop's bound on channel-layer calls in flight (:data:`SENDS_IN_FLIGHT`):
    group sends, and the sockets' group joins and leaves (a thousand sockets closing at once
    must not ask the Redis pool for a thousand connections)."""
    loop = asyncio.get_running_loop()
    gate = _gates.get(loop)
    if gate is None:
        gate = _gates[loop] = asyncio.Semaphore(SENDS_IN_FLIGHT)
    return gate


@contextmanager
def collecting() -> Iterator[list[tuple[str, Event]]]:
    """Gather, instead of sending, the :func:`group_send` calls made in this thread while in
    the block (the on-commit effects of the transactions that commit inside it); the caller
    sends them itself with :func:`asend` (a socket consumer does, on its event loop, so that
    the thread that ran the step is free for the next one as soon as it has committed).
    Tasks are still sent as usual. A transaction that rolls back adds nothing."""
    previous = getattr(_collected, "sends", None)
    sends: list[tuple[str, Event]] = []
    _collected.sends = sends
    try:
        yield sends
    finally:
        _collected.sends = previous


async def asend(sends: Sequence[tuple[str, Event]]) -> None:
    """Send ``(group, message)`` pairs through the channel layer from an event loop, many
    at once within :func:`layer_gate` (one group's messages in their order); never raises."""
    if not sends:
        return
    record = _recorder()
    if record is not None:
        record.sends.extend(sends)
        return
    await _send_all(sends)


@contextmanager
def withholding(name: str, args: Sequence[Any]) -> Iterator[None]:
    """While in the block, :func:`send_task_on_commit` of task ``name`` with ``args`` asks
    for nothing in this thread: the step running the block does what it would do (an
    event's advance deciding its due games, whose ends would each ask for an advance)."""
    key = (name, tuple(args))
    held = getattr(_withheld, "keys", None)
    if held is None:
        held = _withheld.keys = []
    held.append(key)
    try:
        yield
    finally:
        held.remove(key)


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
    gate = layer_gate()
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
    record = _recorder(task=name)
    if record is not None:
        record.tasks.append((name, list(args), queue, countdown))
        return True
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
    block, inside one; to the caller of :func:`collecting`, inside one); False (logged) on
    failure.

    ``event`` may be a function that builds it (it reads the committed rows, at once,
    even in a batch); one that returns None sends nothing."""
    try:
        message = event() if callable(event) else event
        if message is None:
            return False
        collected = getattr(_collected, "sends", None)
        if collected is not None:
            collected.append((group, message))
            return True
        record = _recorder()
        if record is not None:
            record.sends.append((group, message))
            return True
        layer = get_channel_layer()
        if layer is None:
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


def send_task_on_commit(name: str, *, args: Sequence[Any], queue: str, due_in: float | None = None,
                        merge: float | None = None) -> None:
    """:func:`send_task` once the current transaction commits (at once outside one),
    unless :func:`withholding` holds the task back in this thread now.

    ``due_in`` (seconds) counts from this call: the time until the commit (and the rest of
    the step) comes off the countdown instead of being added to it."""
    key = (name, tuple(args))
    if key in (getattr(_withheld, "keys", None) or ()):
        return
    args = list(args)
    asked = time.monotonic()

    def send() -> None:
        countdown = None if due_in is None else max(0.0, due_in - (time.monotonic() - asked))
        send_task(name, args=args, queue=queue, countdown=countdown, merge=merge)

    transaction.on_commit(send)
