"""Settings come from the environment: embedded defaults, real services, production guard.

Each case imports the settings in a fresh interpreter with exactly the environment given,
as a process started by ``make run``, CI or docker compose would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json
from django.conf import settings
db = settings.DATABASES["default"]
print(json.dumps({
    "debug": settings.DEBUG,
    "db_engine": db["ENGINE"],
    "db_name": str(db["NAME"]),
    "db_host": db.get("HOST", ""),
    "broker": settings.CELERY_BROKER_URL,
    "broker_folder": settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("data_folder_in"),
    "channel_layer": settings.CHANNEL_LAYERS["default"]["BACKEND"],
    "channel_hosts": settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("hosts"),
    "cache": settings.CACHES["default"]["BACKEND"],
    "cache_location": settings.CACHES["default"].get("LOCATION"),
    "allowed_hosts": settings.ALLOWED_HOSTS,
}))
"""

PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "SECRET_KEY": "k3Yq9vT1xW8zL0pR5sN2mB7cF4hJ6gD9aE1uI3oP5yT7rW2qZ8xC0vB4nM6lK1jH",
    "ALLOWED_HOSTS": "play.example.com",
}


def clean_env(**variables: str) -> dict[str, str]:
    """A minimal environment (no setting variables at all) plus ``variables``."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "platform"), str(ROOT)])
    env.update(variables)
    return env


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def resolved_settings(**variables: str) -> dict:
    result = run([sys.executable, "-c", "import django; django.setup()\n" + PROBE], clean_env(**variables))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_no_environment_runs_on_embedded_defaults():
    """Nothing set: SQLite in var/, filesystem broker in var/broker/, SQLite-bus layer, DEBUG."""
    resolved = resolved_settings()
    assert resolved["debug"] is True
    assert resolved["db_engine"] == "django.db.backends.sqlite3"
    assert resolved["db_name"] == str(ROOT / "var" / "db.sqlite3")
    assert resolved["broker"].startswith("filesystem://")
    assert resolved["broker_folder"] == str(ROOT / "var" / "broker" / "queue")
    # A layer that carries a worker's messages to the web process (live/layers.py).
    assert resolved["channel_layer"] == "live.layers.SQLiteBusChannelLayer"
    assert resolved["cache"] == "django.core.cache.backends.locmem.LocMemCache"


def test_database_url_switches_to_postgresql():
    resolved = resolved_settings(DATABASE_URL="postgres://player:secret@db.internal:5432/arena")
    assert resolved["db_engine"] == "django.db.backends.postgresql"
    assert (resolved["db_name"], resolved["db_host"]) == ("arena", "db.internal")


def test_redis_url_switches_broker_channel_layer_and_cache_to_redis():
    url = "redis://cache.internal:6379/3"
    resolved = resolved_settings(REDIS_URL=url)
    assert resolved["broker"] == url
    assert resolved["channel_layer"] == "live.redis_layer.BoundedPubSubChannelLayer"
    assert [host["address"] for host in resolved["channel_hosts"]] == [url]
    assert resolved["cache"] == "django.core.cache.backends.redis.RedisCache"
    assert resolved["cache_location"] == url


def test_the_channel_layer_reads_redis_longer_than_its_blocking_read():
    """redis-py's default read timeout (5 s) equalled channels_redis's blocking read (5 s),
    so every idle WebSocket died after about 5 s: the layer's read timeout must stay well
    above the blocking read, whatever versions are installed."""
    from channels_redis.core import RedisChannelLayer

    resolved = resolved_settings(REDIS_URL="redis://cache.internal:6379/3")
    for host in resolved["channel_hosts"]:
        assert host["socket_timeout"] >= 2 * RedisChannelLayer.brpop_timeout + 10
        assert host["socket_connect_timeout"] <= 10


def test_settings_create_the_var_folder_with_database_and_redis_set(tmp_path):
    """A fresh clone has no var/; with DATABASE_URL and REDIS_URL set nothing else created it,
    and beat crashed opening its schedule file there."""
    var = tmp_path / "fresh-clone" / "var"
    result = run(
        [sys.executable, "-c", "import django; django.setup()\nfrom django.conf import settings\n"
         "print(settings.CELERY_BEAT_SCHEDULE_FILENAME)"],
        clean_env(VAR_DIR=str(var), DATABASE_URL="postgres://u:p@db.internal:5432/arena",
                  REDIS_URL="redis://cache.internal:6379/3"),
    )
    assert result.returncode == 0, result.stderr
    assert var.is_dir()
    assert result.stdout.strip().splitlines()[-1] == str(var / "celerybeat-schedule")


@pytest.mark.parametrize(
    ("given", "missing"),
    [
        ({}, ["SECRET_KEY", "ALLOWED_HOSTS"]),
        ({"SECRET_KEY": PRODUCTION["SECRET_KEY"]}, ["ALLOWED_HOSTS"]),
        ({"ALLOWED_HOSTS": "play.example.com"}, ["SECRET_KEY"]),
    ],
)
def test_production_mode_refuses_to_start_without_secret_key_and_allowed_hosts(given, missing):
    """DJANGO_DEBUG=0 without SECRET_KEY / ALLOWED_HOSTS: the process stops and names them."""
    result = run([sys.executable, "manage.py", "check"], clean_env(DJANGO_DEBUG="0", **given))
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    message = result.stderr.strip().splitlines()[-1]
    for name in missing:
        assert name in message
    for name in {"SECRET_KEY", "ALLOWED_HOSTS"} - set(missing):
        assert f"needs {name}" not in message and f"and {name}" not in message


def test_production_settings_pass_check_deploy_without_a_single_warning():
    result = run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], clean_env(**PRODUCTION))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_settings_read_the_host_list():
    resolved = resolved_settings(**{**PRODUCTION, "ALLOWED_HOSTS": "play.example.com,www.example.com"})
    assert resolved["debug"] is False
    assert resolved["allowed_hosts"] == ["play.example.com", "www.example.com"]


@pytest.mark.django_db
def test_ci_runs_against_postgresql():
    """With DATABASE_URL set (CI sets a PostgreSQL one), the suite really uses it."""
    from django.db import connection

    if not os.environ.get("DATABASE_URL"):
        if os.environ.get("REQUIRE_SERVICES") == "1":
            pytest.fail("REQUIRE_SERVICES=1 but DATABASE_URL is not set")
        pytest.skip("DATABASE_URL is not set: the suite runs on SQLite")
    assert connection.vendor == "postgresql"
    assert connection.settings_dict["NAME"].startswith("test_")


def test_rate_limits_come_from_the_environment_and_bad_rates_are_refused():
    probe = "import django; django.setup()\nfrom django.conf import settings\nprint(settings.THROTTLE_RATES)"
    result = run([sys.executable, "-c", probe], clean_env(THROTTLE_LOGIN_RATE="5/min", THROTTLE_WRITE_RATE="off"))
    assert result.returncode == 0, result.stderr
    rates = result.stdout.strip().splitlines()[-1]
    assert "'login': '5/min'" in rates and "'write': None" in rates and "'register': '20/hour'" in rates
    refused = run([sys.executable, "-c", probe], clean_env(THROTTLE_LOGIN_RATE="lots"))
    assert refused.returncode != 0 and "THROTTLE_LOGIN_RATE='lots' is not a rate" in refused.stderr
