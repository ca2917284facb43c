"""The Django admin of tournaments: the organiser's tools (start now, pause, resume,
cancel, re-run failed matches) as admin actions that go through the services."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError

from tournaments.errors import Conflict
from tournaments.models import Entry, Pairing, Round, Tiebreak, Tournament
from tournaments.services import (
    tournament_cancel,
    tournament_pause,
    tournament_rerun_pairing,
    tournament_resume,
    tournament_start,
)


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    fields = ["player", "deck", "deck_version", "plays", "seed", "waitlisted", "late", "checked_in", "absences",
              "dropped", "dropped_round", "drop_reason"]
    readonly_fields = fields
    can_delete = False


def _run(modeladmin, request, queryset, do, done: str) -> None:
    for row in queryset:
        try:
            do(row)
        except (Conflict, PermissionDenied, ValidationError) as exc:
            modeladmin.message_user(request, f"{row}: {getattr(exc, 'detail', exc)}", messages.ERROR)
        else:
            modeladmin.message_user(request, f"{row}: {done}", messages.SUCCESS)


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["name", "game", "format", "entrants", "state", "starts_at", "current_round", "organiser"]
    list_filter = ["game", "format", "entrants", "state"]
    search_fields = ["name", "organiser__username"]
    readonly_fields = ["seed", "state", "current_round", "total_rounds", "cut_entries", "winner", "started",
                       "finished", "cancel_reason"]
    inlines = [EntryInline]
    actions = ["start_now", "pause", "resume", "cancel"]

    def get_readonly_fields(self, request, obj=None):
        """Settings are edited before the start only; after it every field is read-only."""
        if obj is not None and obj.state not in (Tournament.State.DRAFT, Tournament.State.OPEN):
            return [f.name for f in self.model._meta.fields]
        return self.readonly_fields

    @admin.action(description="Start now")
    def start_now(self, request, queryset):
        _run(self, request, queryset, lambda t: tournament_start(tournament_id=t.pk, by=request.user), "started")

    @admin.action(description="Pause")
    def pause(self, request, queryset):
        _run(self, request, queryset, lambda t: tournament_pause(tournament_id=t.pk, by=request.user), "paused")

    @admin.action(description="Resume")
    def resume(self, request, queryset):
        _run(self, request, queryset, lambda t: tournament_resume(tournament_id=t.pk, by=request.user), "resumed")

    @admin.action(description="Cancel (reason: cancelled in the admin)")
    def cancel(self, request, queryset):
        _run(self, request, queryset,
             lambda t: tournament_cancel(tournament_id=t.pk, by=request.user, reason="cancelled in the admin"),
             "cancelled")


@admin.register(Pairing)
class PairingAdmin(admin.ModelAdmin):
    list_display = ["round", "table", "key", "entries", "status", "match"]
    list_filter = ["status", "round__tournament"]
    readonly_fields = ["round", "table", "key", "entries", "seat_entries", "match", "replaced", "series", "status",
                       "result"]
    actions = ["rerun"]

    @admin.action(description="Re-run the failed match")
    def rerun(self, request, queryset):
        _run(self, request, queryset, lambda p: tournament_rerun_pairing(pairing_id=p.pk, by=request.user),
             "re-run")


admin.site.register(Round)
admin.site.register(Tiebreak)
