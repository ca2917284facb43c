"""Two deployments on one Redis server never hear each other: every Redis key and pub/sub
channel of a site (Celery broker, Channels layer, cache) is named under its SITE_PREFIX,
by default derived from its database. Redis pub/sub ignores the database number of
REDIS_URL, so two sites with unprefixed groups would receive each other's live views."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest
from test_settings_env import clean_env, run

from live.layers import SQLiteBusChannelLayer
from live.redis_layer import BoundedPubSubChannelLayer

PROBE = """
import json
from django.conf import settings
print(json.dumps({
    "site_prefix": settings.SITE_PREFIX,
    "layer": settings.CHANNEL_LAYERS["default"],
    "cache_prefix": settings.CACHES["default"].get("KEY_PREFIX"),
    "broker_prefix": settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("global_keyprefix"),
}))
"""


def site_settings(**variables: str) -> dict:
    """The settings a process of a site with exactly this environment resolves."""
    result = run([sys.executable, "-c", "import django; django.setup()\n" + PROBE], clean_env(**variables))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


REDIS = "redis://127.0.0.1:6379/0"


def test_every_redis_name_of_a_site_carries_its_prefix_derived_from_its_database():
    a = site_settings(DATABASE_URL="postgres://u:p@db.internal:5432/site_a", REDIS_URL=REDIS)
    b = site_settings(DATABASE_URL="postgres://u:p@db.internal:5432/site_b", REDIS_URL=REDIS)
    elsewhere = site_settings(DATABASE_URL="postgres://u:p@other.internal:5432/site_a", REDIS_URL=REDIS)
    assert a["site_prefix"].startswith("site_a-") and b["site_prefix"].startswith("site_b-")
    assert len({a["site_prefix"], b["site_prefix"], elsewhere["site_prefix"]}) == 3
    for site in (a, b):
        prefix = site["site_prefix"]
        assert site["layer"]["CONFIG"]["prefix"] == f"{prefix}:"
        assert site["cache_prefix"] == prefix
        assert site["broker_prefix"] == f"{prefix}:"
    # The same deployment resolves the same prefix in every process (web, workers, beat).
    assert site_settings(DATABASE_URL="postgres://u:p@db.internal:5432/site_a", REDIS_URL=REDIS) == a


def test_an_explicit_site_prefix_wins_and_a_bad_one_is_refused():
    named = site_settings(REDIS_URL=REDIS, SITE_PREFIX="play-eu")
    assert named["site_prefix"] == "play-eu" and named["layer"]["CONFIG"]["prefix"] == "play-eu:"
    embedded = site_settings(SITE_PREFIX="play-eu")
    assert embedded["layer"]["CONFIG"]["prefix"] == "play-eu:"
    result = run([sys.executable, "-c", "import django; django.setup()"], clean_env(SITE_PREFIX="two words"))
    assert result.returncode != 0 and "SITE_PREFIX='two words'" in result.stderr


async def _heard(sender, receiver, group: str = "live.1") -> list[dict]:
    """What ``receiver``'s socket channel, a member of ``group``, gets when ``sender`` sends
    a view to ``group``."""
    channel = await receiver.new_channel()
    await receiver.group_add(group, channel)
    waiting = asyncio.ensure_future(receiver.receive(channel))
    try:
        await asyncio.sleep(0.3)  # the subscription (or the bus's poller) is in place
        await sender.group_send(group, {"type": "live.views", "views": {"live.1.public": {"index": 7}}})
        try:
            return [await asyncio.wait_for(waiting, timeout=1.5)]
        except TimeoutError:
            return []
    finally:
        await receiver.group_discard(group, channel)


@pytest.mark.redis
def test_two_sites_on_one_redis_server_do_not_hear_each_others_groups():
    url = os.environ["REDIS_URL"]
    a = site_settings(DATABASE_URL="postgres://u:p@db.internal:5432/site_a", REDIS_URL=url)
    b = site_settings(DATABASE_URL="postgres://u:p@db.internal:5432/site_b", REDIS_URL=url)
    # Even with different database numbers: pub/sub ignores them.
    b["layer"]["CONFIG"]["hosts"][0]["address"] = url.rsplit("/", 1)[0] + "/15"

    def layer(site: dict) -> BoundedPubSubChannelLayer:
        assert site["layer"]["BACKEND"] == "live.redis_layer.BoundedPubSubChannelLayer"
        return BoundedPubSubChannelLayer(**site["layer"]["CONFIG"])

    async def scenario() -> tuple[list, list]:
        site_a, site_b, site_a_again = layer(a), layer(b), layer(a)
        try:
            across = await _heard(site_a, site_b)
            within = await _heard(site_a, site_a_again)
        finally:
            for each in (site_a, site_b, site_a_again):
                await each.flush()
        return across, within

    across, within = asyncio.run(scenario())
    assert across == []
    assert within and within[0]["views"]["live.1.public"]["index"] == 7


def test_two_sites_on_one_embedded_bus_do_not_hear_each_others_groups(tmp_path):
    path = tmp_path / "channels.sqlite3"

    async def scenario() -> tuple[list, list]:
        site_a = SQLiteBusChannelLayer(path=path, prefix="site_a:")
        site_b = SQLiteBusChannelLayer(path=path, prefix="site_b:")
        site_a_again = SQLiteBusChannelLayer(path=path, prefix="site_a:")
        return await _heard(site_a, site_b), await _heard(site_a, site_a_again)

    across, within = asyncio.run(scenario())
    assert across == []
    assert within and within[0]["views"]["live.1.public"]["index"] == 7
