"""Admin pages of decks: read-mostly; versions are shown, never edited."""

from django.contrib import admin

from decks.models import Deck, DeckVersion


class DeckVersionInline(admin.TabularInline):
    model = DeckVersion
    extra = 0
    can_delete = False
    readonly_fields = ["number", "commander", "pilot", "decklist", "created"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Deck)
class DeckAdmin(admin.ModelAdmin):
    list_display = ["name", "game", "owner", "pilot", "is_starter", "archived", "updated"]
    list_filter = ["game", "is_starter", "archived"]
    search_fields = ["name", "owner__username"]
    inlines = [DeckVersionInline]
