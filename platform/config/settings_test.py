"""Settings for the test suite: ``config.settings`` with this run's own namespace.

Everything comes from the same environment as production settings (SQLite or
``DATABASE_URL``, filesystem broker or ``REDIS_URL``); the only difference is that one
test run cannot see another run's messages, or those of a ``make run`` on the same
machine. The pytest process picks a run id and exports it, so the Celery worker and
ASGI server that the fixtures start as subprocesses land in the same namespace.
"""

from __future__ import annotations

import os

from config.settings import *  # noqa: F403
from config.settings import CELERY_BROKER_TRANSPORT_OPTIONS, CHANNEL_LAYERS, DATABASES, REDIS_URL, VAR_DIR

TEST_RUN_ID = os.environ.setdefault("TEST_RUN_ID", f"{os.getpid()}")
TEST_RUN_DIR = VAR_DIR / f"test-{TEST_RUN_ID}"
TEST_RUN_DIR.mkdir(parents=True, exist_ok=True)

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not pytest-django's in-memory default, so that a worker subprocess can open it.
    DATABASES["default"]["TEST"] = {"NAME": str(TEST_RUN_DIR / "db.sqlite3")}

if REDIS_URL:
    CELERY_BROKER_TRANSPORT_OPTIONS = {**CELERY_BROKER_TRANSPORT_OPTIONS, "global_keyprefix": f"test-{TEST_RUN_ID}:"}
    CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = f"test-{TEST_RUN_ID}:"
    CACHES = {  # noqa: F405
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": f"test-{TEST_RUN_ID}",
        }
    }
else:
    for _sub in ("queue", "control"):
        (TEST_RUN_DIR / "broker" / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        **CELERY_BROKER_TRANSPORT_OPTIONS,
        "data_folder_in": str(TEST_RUN_DIR / "broker" / "queue"),
        "data_folder_out": str(TEST_RUN_DIR / "broker" / "queue"),
        "control_folder": str(TEST_RUN_DIR / "broker" / "control"),
    }
    CHANNEL_LAYERS["default"].setdefault("CONFIG", {})["path"] = str(TEST_RUN_DIR / "channels.sqlite3")

CELERY_BEAT_SCHEDULE_FILENAME = str(TEST_RUN_DIR / "celerybeat-schedule")
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The suite makes many requests from one address and one player: the rate limits are
# raised far out of its way. tests/platform/test_rate_limits.py sets the production rates
# (config.settings.DEFAULT_THROTTLE_RATES) back where it proves they throttle.
THROTTLE_RATES = {scope: "100000/min" for scope in THROTTLE_RATES}  # noqa: F405
