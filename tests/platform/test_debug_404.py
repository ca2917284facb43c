"""With DEBUG on (the default of ``make run``), a missing page is the site's own 404 page,
not Django's technical page with the list of every URL pattern; a developer who wants
that list asks for it with ``DJANGO_DEBUG_404=1`` (``settings.DEBUG_TECHNICAL_404``)."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TECHNICAL = "Django tried these URL patterns"
SITE_404 = "This page is not in the deck."


def assert_site_404(status: int, page: str) -> None:
    assert status == 404
    assert SITE_404 in page
    assert 'class="site-header"' in page and "css/site.css" in page
    assert TECHNICAL not in page and "URLconf" not in page


@pytest.fixture
def debug_on(settings):
    settings.DEBUG = True
    settings.DEBUG_TECHNICAL_404 = False
    return settings


@pytest.mark.django_db
def test_a_missing_address_is_the_sites_404_page_with_debug_on(client, debug_on):
    response = client.get("/no/such/page/")
    assert_site_404(response.status_code, response.content.decode())


@pytest.mark.django_db
def test_a_views_404_is_the_sites_page_with_debug_on(client, debug_on):
    response = client.get("/tournaments/987654/")  # the view raises Http404
    assert_site_404(response.status_code, response.content.decode())
    response = client.get("/docs/no-such-doc.md")
    assert_site_404(response.status_code, response.content.decode())


@pytest.mark.django_db
def test_a_missing_api_endpoint_keeps_the_error_shape_with_debug_on(client, debug_on):
    response = client.get("/api/no/such/endpoint/")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


@pytest.mark.django_db
def test_a_missing_slash_still_redirects_with_debug_on(client, debug_on):
    response = client.get("/tournaments")
    assert response.status_code == 301 and response["Location"] == "/tournaments/"


@pytest.mark.django_db
def test_the_technical_404_page_shows_when_a_developer_asks_for_it(client, debug_on):
    debug_on.DEBUG_TECHNICAL_404 = True
    response = client.get("/no/such/page/")
    assert response.status_code == 404 and TECHNICAL in response.content.decode()
    response = client.get("/tournaments/987654/")
    assert response.status_code == 404 and "There is no tournament 987654." in response.content.decode()


def settings_in_a_fresh_process(**variables: str) -> list[str]:
    """DEBUG and DEBUG_TECHNICAL_404 as a process started with only ``variables`` sees them."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings",
               PYTHONPATH=os.pathsep.join([str(ROOT / "platform"), str(ROOT)]), **variables)
    probe = ("import django; django.setup()\nfrom django.conf import settings\n"
             "print(settings.DEBUG, settings.DEBUG_TECHNICAL_404)")
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_debug_is_on_by_default_and_the_technical_404_is_an_opt_in():
    assert settings_in_a_fresh_process() == ["True", "False"]
    assert settings_in_a_fresh_process(DJANGO_DEBUG_404="1") == ["True", "True"]


@pytest.mark.skipif(os.environ.get("DJANGO_DEBUG", "1").lower() in ("0", "false", "off", "no"),
                    reason="the server runs with DJANGO_DEBUG off in this environment")
def test_the_running_server_with_default_settings_answers_the_sites_404(asgi_server):
    try:
        urllib.request.urlopen(asgi_server.url("/no/such/page/"), timeout=10)
    except urllib.error.HTTPError as exc:
        assert_site_404(exc.code, exc.read().decode())
    else:
        pytest.fail("a missing page answered 2xx")
