"""``manage.py load_demo``: load every app's demo data; safe to run any number of times."""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec

from django.apps import apps
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction


class Command(BaseCommand):
    help = (
        "Load demo data: calls load_demo_data(log=...) in each installed app's demo module, "
        "in INSTALLED_APPS order. Idempotent."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--allow-production",
            action="store_true",
            help="load demo data (which includes accounts with known passwords) even with DJANGO_DEBUG=0",
        )

    def handle(self, *args, allow_production: bool = False, **options) -> None:
        if not settings.DEBUG and not allow_production:
            raise CommandError(
                "load_demo creates accounts with known passwords, so it refuses to run with DJANGO_DEBUG=0; "
                "pass --allow-production if this really is a demo site"
            )
        loaded = 0
        for app_config in apps.get_app_configs():
            module_name = f"{app_config.name}.demo"
            if find_spec(module_name) is None:
                continue
            module = import_module(module_name)
            loader = getattr(module, "load_demo_data", None)
            if loader is None:
                continue

            def log(message: str, label: str = app_config.label) -> None:
                self.stdout.write(f"[{label}] {message}")

            with transaction.atomic():
                loader(log=log)
            loaded += 1
        self.stdout.write(self.style.SUCCESS(f"demo data loaded from {loaded} app(s)"))
