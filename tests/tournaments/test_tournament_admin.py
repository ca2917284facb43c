"""The organiser's tools in the Django admin go through the services: start now, pause,
resume, cancel, and settings read-only once the event has started."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from tournament_helpers import fill, make_event

from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(db) -> Client:
    staff = User.objects.create_superuser("root", "root@example.com", "root-pass-123")
    client = Client()
    client.force_login(staff)
    return client


def act(client: Client, action: str, event: Tournament):
    return client.post("/admin/tournaments/tournament/", {"action": action, "_selected_action": [event.pk]},
                       follow=True)


def test_admin_actions_start_pause_resume_and_cancel(admin_client, organiser, sent):
    event = make_event(organiser)
    fill(event, 4)
    assert admin_client.get("/admin/tournaments/tournament/").status_code == 200
    assert admin_client.get(f"/admin/tournaments/tournament/{event.pk}/change/").status_code == 200
    act(admin_client, "start_now", event)
    assert Tournament.objects.get(pk=event.pk).state == "running"
    act(admin_client, "pause", event)
    assert Tournament.objects.get(pk=event.pk).state == "paused"
    act(admin_client, "resume", event)
    assert Tournament.objects.get(pk=event.pk).state == "running"
    page = admin_client.get(f"/admin/tournaments/tournament/{event.pk}/change/").content.decode()
    assert 'name="name"' not in page  # read-only once started
    response = act(admin_client, "start_now", event)
    assert "Only an open event can start" in response.content.decode()
    act(admin_client, "cancel", event)
    event.refresh_from_db()
    assert event.state == "cancelled" and "cancelled in the admin" in event.cancel_reason
