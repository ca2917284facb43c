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


def _run_id() -> str:
    """This process's run id: the pytest process's id, with the pytest-xdist worker's name
    (``gw0``, ``gw1``...) after it in a worker. Workers inherit the controller's environment,
    so without the suffix every worker would share one broker folder, one Redis prefix and
    one channel-layer file, and each would delete the others' folder when it ends. The id is
    exported, so the servers and Celery workers a test starts land in the same namespace."""
    run_id = os.environ.get("TEST_RUN_ID") or f"{os.getpid()}"
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if worker and not run_id.endswith(f"-{worker}"):
        run_id = f"{run_id}-{worker}"
    os.environ["TEST_RUN_ID"] = run_id
    return run_id


TEST_RUN_ID = _run_id()
TEST_RUN_DIR = VAR_DIR / f"test-{TEST_RUN_ID}"
TEST_RUN_DIR.mkdir(parents=True, exist_ok=True)
# The run's namespace on a shared Redis (keys, pub/sub channels), as SITE_PREFIX is a site's.
SITE_PREFIX = f"test-{TEST_RUN_ID}"

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not pytest-django's in-memory default, so that a worker subprocess can open it.
    DATABASES["default"]["TEST"] = {"NAME": str(TEST_RUN_DIR / "db.sqlite3")}

if REDIS_URL:
    CELERY_BROKER_TRANSPORT_OPTIONS = {**CELERY_BROKER_TRANSPORT_OPTIONS, "global_keyprefix": f"{SITE_PREFIX}:"}
    CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = f"{SITE_PREFIX}:"
    CACHES = {  # noqa: F405
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": SITE_PREFIX,
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
    CHANNEL_LAYERS["default"].setdefault("CONFIG", {}).update(path=str(TEST_RUN_DIR / "channels.sqlite3"),
                                                              prefix=f"{SITE_PREFIX}:")

CELERY_BEAT_SCHEDULE_FILENAME = str(TEST_RUN_DIR / "celerybeat-schedule")
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The suite makes many requests from one address and one player: the rate limits are
# raised far out of its way. tests/platform/test_rate_limits.py sets the production rates
# (config.settings.DEFAULT_THROTTLE_RATES) back where it proves they throttle.
THROTTLE_RATES = {scope: "100000/min" for scope in THROTTLE_RATES}  # noqa: F405
