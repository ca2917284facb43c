"""Admin of live matches, queues and challenges (read mostly)."""

from django.contrib import admin

from live.models import LiveChallenge, LiveMatch, LiveSeat, QueueEntry


class LiveSeatInline(admin.TabularInline):
    model = LiveSeat
    extra = 0
    raw_id_fields = ["user", "deck_version"]


@admin.register(LiveMatch)
class LiveMatchAdmin(admin.ModelAdmin):
    list_display = ["match", "game", "status", "created", "finished"]
    list_filter = ["game", "status"]
    raw_id_fields = ["match"]
    inlines = [LiveSeatInline]


@admin.register(QueueEntry)
class QueueEntryAdmin(admin.ModelAdmin):
    list_display = ["user", "queue", "rating", "joined", "match"]
    raw_id_fields = ["user", "deck_version", "match"]


@admin.register(LiveChallenge)
class LiveChallengeAdmin(admin.ModelAdmin):
    list_display = ["challenger", "challenged", "game", "status", "created", "expires"]
    raw_id_fields = ["challenger", "challenged", "deck_version", "match"]
