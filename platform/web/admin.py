"""Admin pages of the site app."""

from django.contrib import admin

from web.models import Heartbeat


@admin.register(Heartbeat)
class HeartbeatAdmin(admin.ModelAdmin):
    list_display = ("name", "worker", "beats", "last_beat_at")
    readonly_fields = ("name", "worker", "beats", "last_beat_at")
