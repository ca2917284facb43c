"""App configuration of the guide app."""

from django.apps import AppConfig


class GuideConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "guide"
    verbose_name = "Guide"
