"""The embedded broker (web/broker.py) under several processes at once, as ``make run`` uses it.

kombu's own filesystem transport let a reader see a message file before its writer had
written it; the worker then died with ``JSONDecodeError`` and ``make run`` went down with it.
These tests race real processes through the transport: every message is delivered exactly
once and nobody sees a partial file.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue as stdlib_queue
import subprocess
import sys
import time
from pathlib import Path

from kombu import Connection, Exchange, Queue

TRANSPORT = "web.broker:Transport"
PRODUCERS = 3
CONSUMERS = 3
PER_PRODUCER = 400
# Large enough that a write is not one syscall's worth: a reader arriving mid-write of the
# stock transport sees a short or empty file.
PAYLOAD = "x" * 200_000


def options(root: Path) -> dict:
    return {
        "data_folder_in": str(root / "queue"),
        "data_folder_out": str(root / "queue"),
        "control_folder": str(root / "control"),
        "store_processed": False,
        "polling_interval": 0.01,
    }


def make_dirs(root: Path) -> None:
    for sub in ("queue", "control"):
        (root / sub).mkdir(parents=True, exist_ok=True)


def produce(transport: str, root: str, producer: int, count: int) -> None:
    queue = Queue("race", Exchange("race"), routing_key="race")
    with Connection("filesystem://", transport=transport, transport_options=options(Path(root))) as conn:
        with conn.Producer() as producer_:
            for i in range(count):
                producer_.publish({"id": f"{producer}-{i}", "pad": PAYLOAD}, exchange=queue.exchange,
                                  routing_key="race", declare=[queue], serializer="json")


def consume(transport: str, root: str, out: mp.Queue, deadline: float) -> None:
    """Drain the queue until ``deadline``; report ids and any error as ("error", text)."""
    queue = Queue("race", Exchange("race"), routing_key="race")
    try:
        with Connection("filesystem://", transport=transport, transport_options=options(Path(root))) as conn:
            simple = conn.SimpleQueue(queue)
            while time.monotonic() < deadline:
                try:
                    message = simple.get(timeout=0.05)
                except stdlib_queue.Empty:
                    continue
                body = message.payload
                assert body["pad"] == PAYLOAD, "partial message body"
                message.ack()
                out.put(("id", body["id"]))
    except Exception as exc:  # reported to the test, which fails naming it
        out.put(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        out.put(("done", os.getpid()))


def race(transport: str, root: Path) -> tuple[list[str], list[str]]:
    make_dirs(root)
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    deadline = time.monotonic() + 60
    consumers = [ctx.Process(target=consume, args=(transport, str(root), out, deadline)) for _ in range(CONSUMERS)]
    producers = [ctx.Process(target=produce, args=(transport, str(root), p, PER_PRODUCER)) for p in range(PRODUCERS)]
    for proc in consumers + producers:
        proc.start()
    ids: list[str] = []
    errors: list[str] = []
    done = 0
    expected = PRODUCERS * PER_PRODUCER
    while done < CONSUMERS:
        kind, value = out.get(timeout=120)
        if kind == "id":
            ids.append(value)
        elif kind == "error":
            errors.append(value)
        else:
            done += 1
        if len(ids) == expected and not errors:
            break
    for proc in producers:
        proc.join(timeout=60)
    for proc in consumers:
        proc.terminate()
        proc.join(timeout=30)
    return ids, errors


def test_every_message_is_delivered_whole_and_once_with_several_producers_and_consumers(tmp_path):
    """3 processes publish 1,200 messages of 200 kB while 3 others consume them: no consumer
    meets a partial file (the stock transport's JSONDecodeError), none is lost or doubled."""
    ids, errors = race(TRANSPORT, tmp_path / "broker")
    assert errors == []
    assert len(ids) == PRODUCERS * PER_PRODUCER, f"{PRODUCERS * PER_PRODUCER - len(ids)} messages lost"
    assert len(set(ids)) == len(ids), "a message was delivered twice"
    assert not list((tmp_path / "broker" / "queue").iterdir())
    assert not list((tmp_path / "broker" / "claimed").iterdir())


def test_a_message_that_is_not_json_is_set_aside_and_the_next_one_delivered(tmp_path):
    """A message file that cannot be decoded (left half-written by a crash of an older version)
    goes to ``rejected/``; the worker keeps running and gets the next message."""
    root = tmp_path / "broker"
    make_dirs(root)
    queue = Queue("race", Exchange("race"), routing_key="race")
    with Connection("filesystem://", transport=TRANSPORT, transport_options=options(root)) as conn:
        simple = conn.SimpleQueue(queue)
        (root / "queue" / f"{int(time.monotonic() * 1000) - 10_000}_broken.race.msg").write_bytes(b'{"bo')
        simple.put({"id": "next"})
        message = simple.get(timeout=5)
        assert message.payload == {"id": "next"}
        message.ack()
    assert [p.name.split("_", 1)[1] for p in (root / "rejected").iterdir()] == ["broken.race.msg"]


def test_the_embedded_settings_use_this_transport():
    """``make run`` (no REDIS_URL) publishes through the atomic transport, not kombu's own."""
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings",
               PYTHONPATH=os.pathsep.join([str(root / "platform"), str(root)]))
    probe = ("from config.celery import app\n"
             "with app.connection_for_write() as conn:\n"
             "    print(type(conn.transport).__module__, type(conn.transport).__name__)\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=root, env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["web.broker", "Transport"]
