"""Forms of the tournament pages: the organiser's settings, entering with a deck (and, in
a mixed event, who plays it), cancelling with a reason. Only the shapes are checked here;
the services check the rest (the engine checks the rules parameters, ``tournaments.live``
the live settings) and the views show their messages by field."""

from __future__ import annotations

import json

from django import forms

from decks.models import Deck
from decks.selectors import deck_list
from engine.bots import STRENGTH_ORDER
from tournaments.models import Entry, Tournament

DATETIME_WIDGET = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")
DATETIME_FORMATS = ["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"]

#: The settings of live rounds, in the order the form's "Live rounds" fieldset shows them
#: (``clock_initial`` is asked as minutes and seconds: ``clock_minutes`` + ``clock_seconds``).
LIVE_FIELDS = ("clock_minutes", "clock_seconds", "clock_increment", "check_in_minutes", "round_start",
               "round_minutes", "no_show_minutes", "round_limit_minutes", "spectator_delay", "bot_cap", "external_bots",
               "publish_at")
#: Live settings the service defaults when they are left empty (an edit keeps the current value).
LIVE_NUMBERS = ("clock_initial", "clock_increment", "check_in_minutes", "no_show_minutes", "round_limit_minutes",
                "spectator_delay")


def _number(label: str, help_text: str, *, low: int, high: int | None = None) -> forms.IntegerField:
    attrs = {"inputmode": "numeric"}
    return forms.IntegerField(required=False, label=label, help_text=help_text, min_value=low, max_value=high,
                              widget=forms.NumberInput(attrs=attrs))


class TournamentForm(forms.ModelForm):
    """Create or edit an event (before it starts): who plays first, then the event's
    settings, then the live rounds' settings (used by people-only and mixed events)."""

    entrants = forms.ChoiceField(
        label="Who plays", choices=Tournament.Entrants.choices, initial=Tournament.Entrants.BOTS,
        widget=forms.RadioSelect, required=False,
        help_text="Bot pilots play on the workers at once; people play their games live on the board, "
                  "round by round")
    params_text = forms.CharField(
        required=False, label="Rules parameters", widget=forms.Textarea(attrs={"rows": 2}),
        help_text='JSON of the game\'s rules parameters (its rules page lists them); empty for its defaults')
    publish = forms.BooleanField(required=False, initial=True, label="Open for entries now (else a draft)")

    clock_minutes = _number("Clock: minutes", "Each player's time for a game: minutes…", low=0, high=120)
    clock_seconds = _number("and seconds", "…plus seconds (0 to 59). 5 min 0 s by default", low=0, high=59)
    clock_increment = _number("Increment (seconds)", "Seconds added to a player's clock after each action",
                              low=0)
    check_in_minutes = _number("Check-in (minutes before the start)",
                               "Players confirm they are there in this window; those who do not are dropped at "
                               "the start. 0: no check-in", low=0)
    round_start = forms.ChoiceField(label="Rounds start", choices=Tournament.RoundStart.choices,
                                    initial=Tournament.RoundStart.AT_ONCE, required=False)
    round_minutes = _number("Minutes between round starts",
                            "Scheduled rounds only: round n starts (n − 1) × this after the start", low=1, high=1440)
    no_show_minutes = _number("No-show (minutes)",
                              "A player not on their board this long after their game starts loses the match",
                              low=1)
    round_limit_minutes = _number("Round limit (minutes)",
                                  "A game still running this long after its round started is decided then", low=2)
    spectator_delay = _number("Spectator delay (seconds)", "Watchers see each table this far behind", low=0)
    bot_cap = forms.ChoiceField(
        label="Strongest bot allowed", required=False,
        choices=[("", "Any bot"), *[(name, name) for name in STRENGTH_ORDER]],
        help_text="Mixed events: entries played by their deck's bot pilot may be at most this strong")
    external_bots = forms.BooleanField(
        label="Bots run by their owners may enter", required=False,
        help_text="Mixed events: programs connected with a bot's token (the bot API) play their tables live")
    publish_at = forms.DateTimeField(
        required=False, label="Decklists public from", widget=DATETIME_WIDGET,
        help_text="Empty: at the start. The event's seed is published once it is over and this time has come")

    class Meta:
        model = Tournament
        fields = ["entrants", "game", "name", "description", "format", "starts_at", "registration_opens",
                  "registration_closes", "entry_limit", "min_entries", "rounds", "best_of", "top_cut", "third_place",
                  "players_per_game", "late_entry_rounds"]
        widgets = {
            "starts_at": DATETIME_WIDGET,
            "registration_opens": DATETIME_WIDGET,
            "registration_closes": DATETIME_WIDGET,
            "description": forms.Textarea(attrs={"rows": 3}),
        }

    def __init__(self, *args, editing: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("starts_at", "registration_opens", "registration_closes", "publish_at"):
            self.fields[name].input_formats = DATETIME_FORMATS
        source = self.instance if self.instance.pk else Tournament()
        for name in ("clock_increment", "check_in_minutes", "round_start", "round_minutes", "no_show_minutes",
                     "round_limit_minutes", "spectator_delay", "bot_cap", "external_bots", "publish_at"):
            self.fields[name].initial = getattr(source, name)
        self.fields["entrants"].initial = source.entrants
        self.fields["clock_minutes"].initial, self.fields["clock_seconds"].initial = divmod(source.clock_initial, 60)
        if self.instance.pk:
            self.fields["params_text"].initial = json.dumps(self.instance.params) if self.instance.params else ""
        if editing:
            del self.fields["publish"]

    @property
    def main_fields(self) -> list[forms.BoundField]:
        """Every field but "Who plays" and the live rounds' ones, in order."""
        return [self[name] for name in self.fields if name != "entrants" and name not in LIVE_FIELDS]

    @property
    def live_fields(self) -> dict[str, forms.BoundField]:
        return {name: self[name] for name in LIVE_FIELDS}

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

    def clean(self) -> dict:
        data = super().clean()
        minutes, seconds = data.get("clock_minutes"), data.get("clock_seconds")
        if minutes is None and seconds is None:
            data["clock_initial"] = None
        else:
            data["clock_initial"] = (minutes or 0) * 60 + (seconds or 0)
        return data

    def values(self) -> dict:
        """The settings for ``tournament_create`` / ``tournament_update``; a live number left
        empty is left out (the service's default on create, the current value on edit)."""
        data = {name: self.cleaned_data.get(name) for name in self.Meta.fields}
        data["params"] = self.cleaned_data.get("params_text") or {}
        for name in ("min_entries", "late_entry_rounds", "top_cut", "players_per_game"):
            if data.get(name) is None:
                data.pop(name)
        for name in (*LIVE_NUMBERS, "round_start", "round_minutes", "bot_cap", "external_bots", "publish_at"):
            data[name] = self.cleaned_data.get(name)
        for name in LIVE_NUMBERS:
            if data[name] is None:
                data.pop(name)
        data["entrants"] = data["entrants"] or Tournament.Entrants.BOTS
        data["round_start"] = data["round_start"] or Tournament.RoundStart.AT_ONCE
        data["bot_cap"] = data["bot_cap"] or ""
        data["external_bots"] = bool(data["external_bots"])
        if data["entrants"] != Tournament.Entrants.MIXED:
            # The cap is a mixed event's setting: a hidden leftover must not refuse the form.
            data["bot_cap"] = ""
            data["external_bots"] = False
        return data


class DeckChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, deck: Deck) -> str:
        return f"{deck.name} ({deck.pilot})"


#: The choice a mixed event offers an entrant, in the words of the enter box.
PLAYS_CHOICES = ((Entry.Plays.PERSON, "Play it myself"), (Entry.Plays.BOT, "Let its bot pilot play"))


class EnterForm(forms.Form):
    """Enter a deck; in a mixed event also who plays it (the player, or the deck's pilot)."""

    deck = DeckChoiceField(queryset=Deck.objects.none(), label="Your deck")
    plays = forms.ChoiceField(choices=PLAYS_CHOICES, initial=Entry.Plays.PERSON, widget=forms.RadioSelect,
                              label="Who plays it")

    def __init__(self, *args, user, game: str, entrants: str = Tournament.Entrants.BOTS, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["deck"].queryset = deck_list(owner=user, game=game)
        if entrants != Tournament.Entrants.MIXED:
            del self.fields["plays"]


class CancelForm(forms.Form):
    reason = forms.CharField(max_length=300, label="Reason (shown on the event page)")
