"""The challenge form of ``/matches/new/``."""

from __future__ import annotations

from django import forms

from decks.models import Deck
from decks.permissions import deck_visibility
from decks.selectors import deck_list


class DeckChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, deck: Deck) -> str:
        owner = "starter" if deck.is_starter else deck.owner.get_username()
        return f"{deck.name} ({deck.get_game_display()}, {owner}, {deck.pilot})"


class ChallengeForm(forms.Form):
    """Your deck against one opponent deck (up to three when its game seats four), best of 1, 3 or 5.

    Only the choices are checked here; the challenge itself (same game, seat count, the
    decks' rules) is checked by ``match_challenge``, whose messages the view shows.
    """

    deck = DeckChoiceField(queryset=Deck.objects.none(), label="Your deck")
    opponent = DeckChoiceField(queryset=Deck.objects.none(), label="Opponent deck")
    opponent_2 = DeckChoiceField(queryset=Deck.objects.none(), required=False,
                                 label="Second opponent (games of 3 or more)")
    opponent_3 = DeckChoiceField(queryset=Deck.objects.none(), required=False, label="Third opponent (games of 4)")
    best_of = forms.TypedChoiceField(choices=[(1, "Best of 1"), (3, "Best of 3"), (5, "Best of 5")], coerce=int,
                                     initial=1, label="Games")

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        own = deck_list(owner=user)
        # A deck entered in an event that has not published its decklists is no opponent.
        everyone = deck_list().exclude(pk__in=deck_visibility(user).hidden_ids()).order_by("-is_starter", "game",
                                                                                          "name")
        self.fields["deck"].queryset = own
        for name in ("opponent", "opponent_2", "opponent_3"):
            self.fields[name].queryset = everyone

    def chosen_decks(self) -> list[Deck]:
        """The decks in entry order: yours first."""
        data = self.cleaned_data
        return [d for d in (data["deck"], data["opponent"], data.get("opponent_2"), data.get("opponent_3")) if d]
