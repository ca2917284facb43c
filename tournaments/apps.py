"""App configuration of the tournaments app: connects the match signals on start-up."""

from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        # In ready(): models and receivers load once the app registry is.
        from matches.models import Match
        from matches.signals import match_failed, match_finished
        from tournaments import receivers

        match_finished.connect(receivers.on_match_finished, sender=Match, dispatch_uid="tournaments.match_finished")
        match_failed.connect(receivers.on_match_failed, sender=Match, dispatch_uid="tournaments.match_failed")
        # An entry made, changed or withdrawn, or an event's settings changed, may hide or show
        # a deck: this process's live boards read which decks are hidden again at once.
        from django.db.models.signals import post_delete, post_save

        from live.selectors import hidden_decks_changed
        from tournaments.models import Entry, Tournament

        for model in (Entry, Tournament):
            post_save.connect(hidden_decks_changed, sender=model,
                              dispatch_uid=f"tournaments.hidden_decks.{model.__name__}")
        post_delete.connect(hidden_decks_changed, sender=Entry, dispatch_uid="tournaments.hidden_decks.entry_deleted")
