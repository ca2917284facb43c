"""Admin pages of matches: status, lease and games, read-only where the worker writes."""

from django.contrib import admin

from matches.models import Match, MatchGame, MatchSeat


class MatchSeatInline(admin.TabularInline):
    model = MatchSeat
    extra = 0
    raw_id_fields = ("deck_version",)


class MatchGameInline(admin.TabularInline):
    model = MatchGame
    extra = 0
    fields = ("number", "seat_order", "actions", "tiebreak", "verified_at", "bot_errors")
    readonly_fields = fields
    can_delete = False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "status", "best_of", "progress", "attempts", "lease_owner", "lease_expires",
                    "created")
    list_filter = ("game", "status", "best_of")
    readonly_fields = ("lease_owner", "lease_expires", "attempts", "progress", "result", "started", "finished")
    inlines = [MatchSeatInline, MatchGameInline]
