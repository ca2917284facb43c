"""Admin pages of ratings: read-only, since ratings change only by rated results (and
``manage.py ladder_rebuild``)."""

from django.contrib import admin

from ladder.models import Rating, RatingChange


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("id", "pool", "game", "deck", "player", "ordinal", "mu", "sigma", "games", "last_played")
    list_filter = ("pool", "game")
    search_fields = ("deck__name", "player__username")
    raw_id_fields = ("deck", "player")
    readonly_fields = ("mu", "sigma", "ordinal", "games", "wins", "draws", "losses", "form", "recent", "last_played")


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ("id", "rating", "match", "entry", "place", "entries", "outcome", "ordinal", "played")
    raw_id_fields = ("rating", "match", "deck_version")
