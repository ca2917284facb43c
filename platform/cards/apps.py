"""App configuration of the cards app (no models: the pools are the engine's data)."""

from django.apps import AppConfig


class CardsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "cards"
    verbose_name = "Cards"
