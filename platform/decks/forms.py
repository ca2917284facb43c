"""The deck form of the website: game, name, pilot, commander and the decklist text.

The deck builder and the paste box both write the one ``decklist`` text field; the
commander select adds its line to that text. Each field's own problems and the engine's
deck problems are reported together (see ``decks.views``).
"""

from __future__ import annotations

import re

from django import forms

from decks.cards.selectors import commanders
from decks.services import DECKLIST_MAX_CHARS, NAME_MAX_LENGTH
from engine import games
from engine.bots import REGISTRY, bot_names
from web.games import game_choices, game_title


def pilot_choices() -> list[tuple[str, str]]:
    """Every bot a deck can choose, with its levels: ``("search:fast", "search:fast — ...")``."""
    choices = []
    for name in bot_names():
        spec = REGISTRY[name]
        choices.append((name, f"{name} — {spec.description}"))
        for level in spec.levels:
            choices.append((f"{name}:{level}", f"{name}:{level} — {name} at its {level} level"))
    return choices


def commander_line_pattern(label: str) -> re.Pattern[str]:
    """A decklist line naming the commander (``Leader: ...``), ignoring case and spaces."""
    return re.compile(rf"^\s*{re.escape(label)}\s*:\s*(?P<name>.*?)\s*(#.*)?$", re.IGNORECASE)


def merge_commander(*, game: str, commander: str, text: str) -> tuple[str, str | None]:
    """The decklist text with the chosen commander on its first line.

    Returns ``(text, problem)``: when the text already names another commander, the text
    is returned unchanged with a problem saying so; when no commander is chosen, the text
    is returned as it is.
    """
    if not commander:
        return text, None
    label = games[game].commander_label
    pattern = commander_line_pattern(label)
    lines = text.splitlines()
    named = [m.group("name") for m in (pattern.match(line) for line in lines) if m]
    others = [n for n in named if n.casefold() != commander.casefold()]
    if others:
        return text, f"the decklist names {label} '{others[0]}' but '{commander}' is chosen above: keep one"
    rest = [line for line in lines if not pattern.match(line)]
    return "\n".join([f"{label}: {commander}", *rest]).strip() + "\n", None


class DeckForm(forms.Form):
    """Register or edit a deck. ``game`` is fixed (disabled) when editing."""

    game = forms.ChoiceField(choices=game_choices, widget=forms.RadioSelect)
    name = forms.CharField(
        max_length=NAME_MAX_LENGTH,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
        error_messages={
            "max_length": "the name is %(show_value)d characters long; at most %(limit_value)d are allowed",
        },
    )
    pilot = forms.ChoiceField(help_text="The bot that plays this deck in matches and tournaments.")
    commander = forms.CharField(required=False)
    ladder = forms.BooleanField(
        required=False,
        help_text="The pilot plays rated ladder matches against decks of similar rating between tournaments.",
    )
    decklist = forms.CharField(
        required=False,
        max_length=DECKLIST_MAX_CHARS,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 16, "spellcheck": "false", "autocomplete": "off"}),
    )

    def __init__(self, *args, fixed_game: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["pilot"].choices = pilot_choices()
        # No maxlength attribute: a browser would cut a pasted name silently; the server
        # says how long it is instead.
        self.fields["name"].widget.attrs.pop("maxlength", None)
        self.fixed_game = fixed_game
        if fixed_game:
            self.fields["game"].disabled = True
            self.fields["game"].initial = fixed_game

    def commander_groups(self) -> list[dict]:
        """The commander select's option groups: one per game, with its label and cards."""
        return [
            {
                "game": key,
                "title": title,
                "label": games[key].commander_label,
                "options": [face.name for face in commanders(game=key)],
            }
            for key, title in game_choices()
            if not self.fixed_game or key == self.fixed_game
        ]

    def clean(self) -> dict:
        data = super().clean()
        game = data.get("game")
        text = data.get("decklist")
        commander = (data.get("commander") or "").strip()
        if game and commander:
            known = {face.name.casefold(): face.name for face in commanders(game=game)}
            if commander.casefold() not in known:
                label = games[game].commander_label
                self.add_error("commander", f"'{commander}' is not a {label} of {game_title(game)}")
                return data
            commander = known[commander.casefold()]
        if game and text is not None:
            merged, problem = merge_commander(game=game, commander=commander, text=text)
            if problem:
                self.add_error("commander", problem)
            else:
                data["decklist"] = merged
        return data
