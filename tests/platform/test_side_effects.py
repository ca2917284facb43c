"""Side effects after commit (``web.effects``): a broadcast is sent once its rows are
committed and never for a write that rolled back, and a channel layer that is down never
turns a recorded write into an error."""

from __future__ import annotations

import logging

import pytest
from channels.layers import get_channel_layer
from django.db import transaction
from django.test import override_settings

from web.models import Heartbeat
from web.services import SITE_GROUP, heartbeat_record

pytestmark = pytest.mark.django_db


class Listener:
    """A socket's side of the channel layer, in a thread with an event loop of its own
    (as a web process has): a channel in ``SITE_GROUP`` that keeps every message it is sent
    while the test goes on, so that a message is never missed for want of a listener (the
    Redis pub/sub layer keeps nothing for a channel nobody listens to)."""

    def __init__(self) -> None:
        import asyncio
        import queue
        import threading

        self.messages: queue.Queue = queue.Queue()
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()

        async def listen() -> None:
            layer = get_channel_layer()
            channel = await layer.new_channel()
            await layer.group_add(SITE_GROUP, channel)
            ready.set()
            while True:
                self.messages.put(await layer.receive(channel))

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            self.task = self.loop.create_task(listen())
            try:
                self.loop.run_until_complete(self.task)
            except BaseException:  # cancelled by close()
                pass
            finally:
                # Closed here, in its thread, once its task is done: a loop left open is
                # closed by the garbage collector at exit, where the Redis layer's close
                # hook (a flush) waited forever and the test run never ended.
                self.loop.close()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert ready.wait(10), "the listener could not join its group"

    def get(self, timeout: float = 1.0) -> dict | None:
        import queue

        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.task.cancel)
        self.thread.join(10)


@pytest.fixture
def listener():
    listening = Listener()
    yield listening
    listening.close()


def test_a_beat_is_broadcast_once_committed(listener, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        heartbeat_record(worker="w1")
    assert len(callbacks) == 1  # the broadcast waits for the commit
    assert listener.get() is None
    callbacks[0]()
    message = listener.get(5.0)
    assert message is not None and message["type"] == "site.heartbeat" and message["worker"] == "w1"


def test_a_write_that_rolls_back_broadcasts_nothing(listener, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(RuntimeError), transaction.atomic():
            heartbeat_record(worker="w2")
            raise RuntimeError("the request failed after the write")
    assert callbacks == [] and listener.get() is None
    assert not Heartbeat.objects.filter(worker="w2").exists()


def test_a_channel_layer_that_is_down_does_not_fail_a_recorded_beat(closed_port, caplog,
                                                                    django_capture_on_commit_callbacks):
    down = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer",
                        "CONFIG": {"hosts": [f"redis://127.0.0.1:{closed_port}/0"]}}}
    with override_settings(CHANNEL_LAYERS=down), caplog.at_level(logging.ERROR, logger="web.effects"):
        with django_capture_on_commit_callbacks(execute=True):
            beat = heartbeat_record(worker="w3")
    assert Heartbeat.objects.get(pk=beat.pk).worker == "w3"
    assert f"could not broadcast to group '{SITE_GROUP}'" in caplog.text


def test_a_batch_holds_its_sends_and_tasks_until_it_ends_then_sends_them_all(listener, monkeypatch):
    """``effects.batched``: what a round of a live event announces goes out when the block
    ends: every group send (through the real channel layer), then every task, through one
    broker connection; a nested block joins the outer one."""
    from config.celery import app
    from web import effects

    sent: list[tuple[str, list, dict]] = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **options: sent.append((name, args, options)))
    with effects.batched():
        with effects.batched():
            assert effects.group_send(SITE_GROUP, {"type": "site.heartbeat", "worker": "a"})
        assert effects.group_send(SITE_GROUP, lambda: {"type": "site.heartbeat", "worker": "b"})
        assert effects.send_task("t.one", args=[1], queue="q")
        assert effects.send_task("t.two", args=[2], queue="q", countdown=3.0)
        assert effects.send_task("t.one", args=[1], queue="q")  # the same, due now: sent once
        assert effects.send_task("t.two", args=[2], queue="q", countdown=3.0)  # due later: kept
        # Nothing has gone out yet, not even what the inner block sent.
        assert listener.get() is None and sent == []
    # One group's messages keep their order.
    assert [listener.get(5.0)["worker"] for _ in range(2)] == ["a", "b"]
    assert [(name, args, options["countdown"]) for name, args, options in sent] == [
        ("t.one", [1], None), ("t.two", [2], 3.0), ("t.two", [2], 3.0)]
    producers = {id(options["producer"]) for _, _, options in sent}
    assert len(producers) == 1  # one broker connection for the batch


def test_a_batch_sends_tasks_due_together_as_one_message_when_they_may_merge(monkeypatch):
    """``send_task(merge=...)``: a round of a live event schedules a clock check per game,
    all due at the same moment; inside a batch those due within the window go as one
    message whose argument is the list of theirs, due with the last of them. Others, and a
    mergeable task with no partner, go as asked, in their order."""
    from config.celery import app
    from web import effects

    sent: list[tuple[str, list, float | None]] = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **options: sent.append((name, args, options["countdown"])))
    with effects.batched():
        effects.send_task("t.clock", args=[11], queue="live", countdown=300.1, merge=0.5)
        effects.send_task("t.other", args=[1], queue="q")
        effects.send_task("t.clock", args=[12], queue="live", countdown=300.0, merge=0.5)
        effects.send_task("t.clock", args=[13], queue="live", countdown=300.4, merge=0.5)
        effects.send_task("t.clock", args=[14], queue="live", countdown=302.0, merge=0.5)  # outside the window
        effects.send_task("t.clock", args=[15], queue="other", countdown=300.0, merge=0.5)  # another queue
        effects.send_task("t.clock", args=[16], queue="live", countdown=300.2)  # not mergeable
    assert sent == [("t.clock", [[11, 12, 13]], 300.4), ("t.other", [1], None), ("t.clock", [14], 302.0),
                    ("t.clock", [15], 300.0), ("t.clock", [16], 300.2)]
    # Outside a batch a mergeable task goes at once, as it is.
    sent.clear()
    effects.send_task("t.clock", args=[17], queue="live", countdown=1.0, merge=0.5)
    assert sent == [("t.clock", [17], 1.0)]


def test_a_batch_that_raises_still_sends_what_was_gathered(listener):
    from web import effects

    with pytest.raises(RuntimeError), effects.batched():
        effects.group_send(SITE_GROUP, {"type": "site.heartbeat", "worker": "c"})
        raise RuntimeError("the step failed after an earlier transaction committed")
    message = listener.get(5.0)
    assert message is not None and message["worker"] == "c"
    # Outside a batch, a send goes at once again.
    effects.group_send(SITE_GROUP, {"type": "site.heartbeat", "worker": "d"})
    assert listener.get(5.0)["worker"] == "d"


def test_a_recording_keeps_what_every_thread_would_send_and_sends_nothing(listener, monkeypatch):
    """``effects.recording`` (the ``effects_recorded`` fixture): tasks and group sends of
    any thread of the process are recorded as they were asked for, before any batching;
    nothing reaches the broker or the channel layer, and sending resumes after it."""
    import threading

    from config.celery import app
    from web import effects

    sent: list = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **options: sent.append((name, args)))
    with effects.recording() as record:
        with effects.batched():
            effects.send_task("t.one", args=[1], queue="q")
            effects.send_task("t.one", args=[1], queue="q")
        other = threading.Thread(target=lambda: effects.group_send(SITE_GROUP, {"type": "site.heartbeat",
                                                                                "worker": "rec"}))
        other.start()
        other.join()
        effects.send_task("t.two", args=[2], queue="q", countdown=4.0)
    assert record.tasks == [("t.one", [1], "q", None), ("t.one", [1], "q", None), ("t.two", [2], "q", 4.0)]
    assert record.task_names() == ["t.one", "t.one", "t.two"]
    assert record.for_group(SITE_GROUP) == [{"type": "site.heartbeat", "worker": "rec"}]
    assert sent == [] and listener.get() is None
    effects.send_task("t.three", args=[3], queue="q")
    assert sent == [("t.three", [3])]


def test_a_recording_of_some_tasks_lets_everything_else_go(listener, monkeypatch):
    """``effects.recording(tasks=..., sends=False)``: only the tasks it names are recorded
    (a test holds back a match's ``run_match`` to send it to a worker of its own); other
    tasks and the group sends go as usual, or to an enclosing recording that takes them."""
    from asgiref.sync import async_to_sync

    from config.celery import app
    from web import effects

    sent: list = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **options: sent.append((name, args)))
    with effects.recording(tasks=["t.held"], sends=False) as held:
        effects.send_task("t.held", args=[1], queue="q")
        effects.send_task("t.other", args=[2], queue="q")
        effects.group_send(SITE_GROUP, {"type": "site.heartbeat", "worker": "goes"})
        async_to_sync(effects.asend)([(SITE_GROUP, {"type": "site.heartbeat", "worker": "goes too"})])
        with effects.recording() as everything:
            effects.send_task("t.held", args=[3], queue="q")
            effects.send_task("t.other", args=[4], queue="q")
            effects.group_send(SITE_GROUP, {"type": "site.heartbeat", "worker": "kept"})
        with effects.recording() as outer, effects.recording(tasks=["t.held"]) as inner:
            effects.send_task("t.held", args=[5], queue="q")
            effects.send_task("t.other", args=[6], queue="q")
    assert held.tasks == [("t.held", [1], "q", None)] and held.sends == []
    assert sent == [("t.other", [2])]
    assert [listener.get(5.0)["worker"] for _ in range(2)] == ["goes", "goes too"] and listener.get() is None
    assert everything.tasks == [("t.held", [3], "q", None), ("t.other", [4], "q", None)]
    assert everything.for_group(SITE_GROUP) == [{"type": "site.heartbeat", "worker": "kept"}]
    assert inner.tasks == [("t.held", [5], "q", None)] and outer.tasks == [("t.other", [6], "q", None)]


def test_a_step_collects_its_group_sends_for_its_caller_who_sends_them_from_an_event_loop(listener, monkeypatch,
                                                                                        django_capture_on_commit_callbacks):
    """``effects.collecting`` keeps the group sends of the transactions committed in the
    block (a move made from a socket) and sends the tasks as usual; ``effects.asend`` then
    sends them from an event loop, in their order. A transaction that rolls back adds
    nothing."""
    from asgiref.sync import async_to_sync

    from config.celery import app
    from web import effects

    tasks: list = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **options: tasks.append(name))
    with effects.collecting() as sends:
        with django_capture_on_commit_callbacks(execute=True):
            effects.broadcast_on_commit(SITE_GROUP, {"type": "site.heartbeat", "worker": "x"})
            effects.send_task_on_commit("t.bot", args=[1], queue="live")
        with pytest.raises(RuntimeError), transaction.atomic():
            effects.broadcast_on_commit(SITE_GROUP, {"type": "site.heartbeat", "worker": "rolled back"})
            raise RuntimeError("refused")
        effects.group_send(SITE_GROUP, {"type": "site.heartbeat", "worker": "y"})
    assert [message["worker"] for _, message in sends] == ["x", "y"] and tasks == ["t.bot"]
    assert listener.get() is None
    async_to_sync(effects.asend)(sends)
    assert [listener.get(5.0)["worker"] for _ in range(2)] == ["x", "y"]


def test_a_task_asked_for_on_commit_is_due_from_the_request_and_can_be_withheld(monkeypatch,
                                                                               django_capture_on_commit_callbacks):
    """``send_task_on_commit``: sent once the transaction commits, never for one that rolls
    back; ``due_in`` counts from the request (the time until the commit comes off the
    countdown); inside ``withholding`` of the same task and arguments nothing is asked for
    (the step does what the task would), while other arguments still are."""
    import time

    from config.celery import app
    from web import effects

    sent: list = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **options: sent.append((name, args,
                                                                                     options["countdown"])))
    with django_capture_on_commit_callbacks(execute=True):
        effects.send_task_on_commit("t.advance", args=[7], queue="q", due_in=60.0)
        effects.send_task_on_commit("t.advance", args=[8], queue="q")
        time.sleep(0.3)
        assert sent == []
    (name, args, countdown), now = sent[0], sent[1]
    assert (name, args) == ("t.advance", [7]) and 59.0 < countdown <= 59.75
    assert now == ("t.advance", [8], None)
    sent.clear()
    with pytest.raises(RuntimeError), transaction.atomic():
        effects.send_task_on_commit("t.advance", args=[7], queue="q")
        raise RuntimeError("refused")
    with django_capture_on_commit_callbacks(execute=True), effects.withholding("t.advance", [7]):
        effects.send_task_on_commit("t.advance", args=[7], queue="q")
        effects.send_task_on_commit("t.advance", args=[9], queue="q")
    assert sent == [("t.advance", [9], None)]
