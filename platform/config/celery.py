"""The Celery app: one per project, configured from Django settings (``CELERY_*``).

The broker comes from settings (filesystem transport by default, Redis with
``REDIS_URL``). What is fixed here is the delivery policy every task relies on:

- queues, in the order a worker serves them (``QUEUES``): ``live`` (a live bot's move and
  a live clock's deadline: a person is waiting on them, so they have a worker of their own
  in the Procfile and compose, and go first on any worker that serves every queue),
  ``periodic`` (beat's repair
  and scheduling tasks: the sweeper, ticks, the heartbeat; they never wait behind a
  match), ``tournaments``, ``matches`` (challenges and live matches), ``ladder``,
  ``default``, then ``lab`` (the deck lab's chunks of matches: the lowest, served by a
  worker of its own, so a lab of thousands of matches never delays the others). A match
  task is sent to the queue of its match's kind (``matches.conf.QUEUE_BY_KIND``); with
  Redis the worker takes from the first non-empty queue in that order
  (``queue_order_strategy = "priority"``). Match playing can get workers of its own
  (``celery -A config worker -Q tournaments,matches,ladder``);
- ``task_acks_late`` with ``task_reject_on_worker_lost``: a task is acknowledged only
  after it finished, so a worker that dies mid-task hands it back to the broker; tasks
  must therefore be safe to run twice (they take ids and re-read their rows);
- ``worker_prefetch_multiplier = 1``: a busy worker does not hoard tasks others could run;
- results are not stored: a task's outcome is written to PostgreSQL by the task itself.
"""

from __future__ import annotations

import os

from celery import Celery
from kombu import Exchange, Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

#: How often beat asks a worker to record the site heartbeat, in seconds.
HEARTBEAT_SECONDS = float(os.environ.get("HEARTBEAT_SECONDS", "10"))
#: How often beat runs the matches sweeper (re-queues matches whose worker died), in seconds.
MATCHES_SWEEP_SECONDS = float(os.environ.get("MATCHES_SWEEP_SECONDS", "30"))
#: How often beat runs the ladder's pairing tick (idle ladder decks get matches), in seconds.
LADDER_TICK_SECONDS = float(os.environ.get("LADDER_TICK_SECONDS", "10"))
#: How often beat runs ``live.tick`` (live clocks due, matchmaking, challenge expiry), in seconds.
LIVE_TICK_SECONDS = float(os.environ.get("LIVE_TICK_SECONDS", "5"))
#: How often beat runs ``lab.sweep`` (hands on lab chunks whose worker died), in seconds:
#: a lab waits at most this long past an expired lease (``LAB_LEASE_SECONDS``).
LAB_SWEEP_SECONDS = 30.0
#: How often beat runs ``meta.tick`` (newly recorded results into the metagame figures), in seconds.
META_TICK_SECONDS = float(os.environ.get("META_TICK_SECONDS", "60"))
#: How often beat runs ``tournaments.tick`` (starts due events, repairs stuck rounds), in seconds.
TOURNAMENTS_TICK_SECONDS = float(os.environ.get("TOURNAMENTS_TICK_SECONDS", "60"))
#: How often beat deletes the idempotency keys older than ``IDEMPOTENCY_KEY_HOURS``, in seconds.
IDEMPOTENCY_PRUNE_SECONDS = 3600.0

#: Every queue, highest priority first. A worker started without ``-Q`` serves them all.
QUEUES = ("live", "periodic", "tournaments", "matches", "ladder", "default", "lab")
#: Tasks that beat schedules: they go to ``periodic``, ahead of every match.
PERIODIC_TASKS = ("web.heartbeat", "matches.sweep", "web.prune_idempotency_keys", "lab.sweep")
#: Tasks a person in a live match waits on: they go to ``live``, ahead of everything.
LIVE_TASKS = ("live.bot_act", "live.check_clock")

app = Celery("cardplatform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    task_default_queue="default",
    # Each queue with its own exchange and routing key: with a shared key a direct
    # exchange would copy every message into both queues.
    task_queues=tuple(Queue(name, Exchange(name), routing_key=name) for name in QUEUES),
    task_default_exchange="default",
    task_default_routing_key="default",
    task_routes=(
        {name: {"queue": "live"} for name in LIVE_TASKS},
        {name: {"queue": "periodic"} for name in PERIODIC_TASKS},
        {"*.tick": {"queue": "periodic"}, "matches.*": {"queue": "matches"}, "lab.*": {"queue": "lab"}},
    ),
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_ignore_result=True,
    beat_schedule={
        "site-heartbeat": {
            "task": "web.heartbeat",
            "schedule": HEARTBEAT_SECONDS,
            # A heartbeat nobody ran within a few periods is stale: drop it rather than
            # let them pile up while no worker runs.
            "options": {"expires": 3 * HEARTBEAT_SECONDS},
        },
        "matches-sweep": {
            "task": "matches.sweep",
            "schedule": MATCHES_SWEEP_SECONDS,
            "options": {"expires": MATCHES_SWEEP_SECONDS},
        },
        "lab-sweep": {
            "task": "lab.sweep",
            "schedule": LAB_SWEEP_SECONDS,
            "options": {"expires": LAB_SWEEP_SECONDS},
        },
        "ladder-tick": {
            "task": "ladder.tick",
            "schedule": LADDER_TICK_SECONDS,
            "options": {"expires": LADDER_TICK_SECONDS},
        },
        "live-tick": {
            "task": "live.tick",
            "schedule": LIVE_TICK_SECONDS,
            "options": {"expires": LIVE_TICK_SECONDS},
        },
        "tournaments-tick": {
            "task": "tournaments.tick",
            "schedule": TOURNAMENTS_TICK_SECONDS,
            "options": {"expires": TOURNAMENTS_TICK_SECONDS},
        },
        "meta-tick": {
            "task": "meta.tick",
            "schedule": META_TICK_SECONDS,
            "options": {"expires": META_TICK_SECONDS},
        },
        "idempotency-keys-prune": {
            "task": "web.prune_idempotency_keys",
            "schedule": IDEMPOTENCY_PRUNE_SECONDS,
            "options": {"expires": IDEMPOTENCY_PRUNE_SECONDS},
        },
    },
)
app.autodiscover_tasks()
