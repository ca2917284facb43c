"""Forms of the tournament pages: the organiser's settings, entering with a deck,
cancelling with a reason. Only the shapes are checked here; the services check the rest
(the engine checks the rules parameters) and the views show their messages."""

from __future__ import annotations

import json

from django import forms

from decks.models import Deck
from decks.selectors import deck_list
from tournaments.models import Tournament

DATETIME_WIDGET = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")


class TournamentForm(forms.ModelForm):
    """Create or edit an event (before it starts)."""

    params_text = forms.CharField(
        required=False, label="Rules parameters", widget=forms.Textarea(attrs={"rows": 2}),
        help_text='JSON, e.g. {"battles": 5} for Conquest; empty for the game\'s defaults')
    publish = forms.BooleanField(required=False, initial=True, label="Open for entries now (else a draft)")

    class Meta:
        model = Tournament
        fields = ["game", "name", "description", "format", "starts_at", "registration_opens", "registration_closes",
                  "entry_limit", "min_entries", "rounds", "best_of", "top_cut", "third_place", "players_per_game",
                  "late_entry_rounds"]
        widgets = {
            "starts_at": DATETIME_WIDGET,
            "registration_opens": DATETIME_WIDGET,
            "registration_closes": DATETIME_WIDGET,
            "description": forms.Textarea(attrs={"rows": 3}),
        }

    def __init__(self, *args, editing: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("starts_at", "registration_opens", "registration_closes"):
            self.fields[name].input_formats = ["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"]
        if self.instance.pk:
            self.fields["params_text"].initial = json.dumps(self.instance.params) if self.instance.params else ""
        if editing:
            del self.fields["publish"]

    def clean_params_text(self) -> dict:
        text = (self.cleaned_data.get("params_text") or "").strip()
        if not text:
            return {}
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not valid JSON: {exc.msg} at character {exc.pos}") from None
        if not isinstance(value, dict):
            raise forms.ValidationError("rules parameters must be a JSON object, e.g. {\"battles\": 5}")
        return value

    def values(self) -> dict:
        """The settings for ``tournament_create`` / ``tournament_update``."""
        data = {name: self.cleaned_data.get(name) for name in self.Meta.fields}
        data["params"] = self.cleaned_data.get("params_text") or {}
        for name in ("min_entries", "late_entry_rounds", "top_cut", "players_per_game"):
            if data.get(name) is None:
                data.pop(name)
        return data


class DeckChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, deck: Deck) -> str:
        return f"{deck.name} ({deck.pilot})"


class EnterForm(forms.Form):
    deck = DeckChoiceField(queryset=Deck.objects.none(), label="Your deck")

    def __init__(self, *args, user, game: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["deck"].queryset = deck_list(owner=user, game=game)


class CancelForm(forms.Form):
    reason = forms.CharField(max_length=300, label="Reason (shown on the event page)")
