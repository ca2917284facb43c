"""``GET /healthz``: one line per service, 200 when all are up, 503 when one is down."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from django.test import override_settings

SERVICES = ("database", "broker", "channel_layer", "cache")


@pytest.mark.django_db
def test_healthz_reports_every_service_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    report = response.json()
    assert report["status"] == "ok"
    assert {name: report[name] for name in SERVICES} == dict.fromkeys(SERVICES, "ok")
    assert response["Cache-Control"].startswith("max-age=0")


@pytest.mark.django_db
def test_healthz_answers_503_naming_the_broker_when_it_is_down(client, closed_port):
    with override_settings(CELERY_BROKER_URL=f"redis://127.0.0.1:{closed_port}/0", CELERY_BROKER_TRANSPORT_OPTIONS={}):
        response = client.get("/healthz")
    assert response.status_code == 503
    report = response.json()
    assert report["status"] == "degraded"
    assert report["broker"].startswith("error:")
    assert report["database"] == report["channel_layer"] == report["cache"] == "ok"


@pytest.mark.django_db
def test_healthz_answers_503_naming_the_channel_layer_when_it_is_down(client, closed_port):
    down = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [f"redis://127.0.0.1:{closed_port}/0"]},
        }
    }
    with override_settings(CHANNEL_LAYERS=down):
        response = client.get("/healthz")
    assert response.status_code == 503
    report = response.json()
    assert report["channel_layer"].startswith("error:")
    assert report["database"] == report["broker"] == "ok"


@pytest.mark.django_db
def test_healthz_answers_503_naming_the_cache_when_it_is_down(client, closed_port):
    down = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                        "LOCATION": f"redis://127.0.0.1:{closed_port}/0"}}
    with override_settings(CACHES=down):
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["cache"].startswith("error:")


@pytest.mark.django_db
def test_healthz_shows_the_last_heartbeat_and_which_worker_recorded_it(client):
    from web.services import heartbeat_record

    heartbeat_record(worker="celery@box-1")
    heartbeat_record(worker="celery@box-2")
    beat = client.get("/healthz").json()["heartbeat"]
    assert beat["state"] == "ok"
    assert (beat["worker"], beat["beats"]) == ("celery@box-2", 2)
    assert beat["age_seconds"] < 5


@pytest.mark.django_db
def test_healthz_says_never_before_the_first_heartbeat(client):
    assert client.get("/healthz").json()["heartbeat"]["state"] == "never"


def test_real_asgi_server_serves_healthz_and_the_stylesheet(asgi_server):
    """Through uvicorn, as deployed: the JSON report, and static files from WhiteNoise."""
    try:
        with urllib.request.urlopen(asgi_server.url("/healthz"), timeout=10) as response:
            status, report = response.status, json.load(response)
    except urllib.error.HTTPError as error:
        status, report = error.code, json.load(error)
    assert status == 200, report
    assert {name: report[name] for name in SERVICES} == dict.fromkeys(SERVICES, "ok")

    with urllib.request.urlopen(asgi_server.url("/static/css/site.css"), timeout=10) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/css")
        assert b".site-header" in response.read()
    # Static files stream as asynchronous iterators: Django has nothing to warn about.
    assert "synchronous iterators" not in asgi_server.log()
