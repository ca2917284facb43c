from django.apps import AppConfig


class MetaConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "meta"
    verbose_name = "Metagame"
