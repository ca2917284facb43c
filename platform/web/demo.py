"""Demo data of the site app, loaded by ``manage.py load_demo``.

Every installed app may have a ``demo`` module with a ``load_demo_data(*, log)``
function like this one; ``load_demo`` calls them in ``INSTALLED_APPS`` order, each in its
own transaction. Each must be idempotent: running it again changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth import get_user_model

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo"


def load_demo_data(*, log: Callable[[str], None]) -> None:
    """Create the demo player ``demo`` (password ``demo``) unless it exists."""
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(
        username=DEMO_USERNAME, defaults={"email": "demo@example.com", "first_name": "Demo"}
    )
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save(update_fields=["password"])
        log(f"created user '{DEMO_USERNAME}' (password '{DEMO_PASSWORD}')")
    else:
        log(f"user '{DEMO_USERNAME}' already exists")
