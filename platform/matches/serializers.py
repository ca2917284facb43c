"""JSON shapes of matches, for the API, the live socket and the match page's polling.

One shape everywhere: the socket's ``match.update`` event carries exactly what
``GET /api/matches/<id>/`` answers, so the page renders both the same way.

Nothing secret leaves through them: while a match is queued or running, ``seed`` and
``seed_salt`` are null (only ``seed_commitment`` shows), and a bot error's message is
cut before any action it names (an illegal action may name a card in hand). A deck the
viewer may not see (``decks.permissions.DeckVisibility``, from the context's
``visibility``; without one, an anonymous visitor's) is named only by its hidden label,
and while one is, the match's seed, salt and bot errors' actions stay closed too.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from decks.permissions import deck_visibility
from engine import games
from matches.models import Match, MatchGame, MatchSeat
from matches.selectors import match_sealed
from web.games import seat_counts_text


def visibility_of(context: dict[str, Any]):
    """The viewer's deck privacy from a serializer's context (``visibility``), or an
    anonymous visitor's, built once per serialization (broadcasts to a group use that)."""
    if context.get("visibility") is None:
        context["visibility"] = deck_visibility(None)
    return context["visibility"]


class MatchSeatSerializer(serializers.ModelSerializer):
    """One entry of a match. A deck entered in an event that has not published its
    decklists is hidden from all but its owner, the organiser and staff: ``deck_id`` and
    ``version`` are null and ``deck`` says until when (docs/security.md)."""

    deck_id = serializers.SerializerMethodField(help_text="null while the deck is hidden")
    deck = serializers.SerializerMethodField(help_text="The deck's name, or 'Deck hidden until <time> UTC'")
    version = serializers.SerializerMethodField(help_text="null while the deck is hidden")
    hidden_until = serializers.SerializerMethodField(help_text="When a hidden deck is published; null if shown")
    owner = serializers.CharField(source="deck_version.deck.owner.username", read_only=True)

    class Meta:
        model = MatchSeat
        fields = ["seat", "deck_id", "deck", "version", "hidden_until", "owner", "pilot"]

    def _deck(self, seat: MatchSeat) -> dict[str, Any]:
        return visibility_of(self.context).deck_json(seat.deck_version)

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_deck_id(self, seat: MatchSeat) -> int | None:
        return self._deck(seat)["deck_id"]

    def get_deck(self, seat: MatchSeat) -> str:
        return self._deck(seat)["deck"]

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_version(self, seat: MatchSeat) -> int | None:
        return self._deck(seat)["version"]

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_hidden_until(self, seat: MatchSeat) -> str | None:
        until = self._deck(seat)["hidden_until"]
        return until.isoformat() if until else None


class MatchGameSerializer(serializers.ModelSerializer):
    winner = serializers.SerializerMethodField(help_text="The entry that won the game; null for a draw")
    places = serializers.SerializerMethodField(help_text="Place of each entry (1 is first)")
    reason = serializers.SerializerMethodField()
    scores = serializers.SerializerMethodField(help_text="Engine scores, by engine seat")
    forfeited = serializers.SerializerMethodField(help_text="The entries that forfeited the game (did not show up "
                                                            "for a live game); empty for a game played out")
    replay_url = serializers.SerializerMethodField()
    api_replay_url = serializers.SerializerMethodField()

    class Meta:
        model = MatchGame
        fields = ["number", "seat_order", "winner", "places", "reason", "scores", "forfeited", "actions",
                  "bot_errors", "tiebreak", "replay_url", "api_replay_url"]

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_winner(self, game: MatchGame) -> int | None:
        return game.winner_entry

    def get_places(self, game: MatchGame) -> list[int]:
        return list(game.outcome.get("entry_places") or [])

    def get_reason(self, game: MatchGame) -> str:
        return str(game.outcome.get("reason") or "")

    def get_scores(self, game: MatchGame) -> list[Any]:
        return list(game.outcome.get("scores") or [])

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_forfeited(self, game: MatchGame) -> list[int]:
        return game.forfeited_entries

    def get_replay_url(self, game: MatchGame) -> str:
        return reverse("matches:replay", args=[game.match_id]) + f"?game={game.number}"

    def get_api_replay_url(self, game: MatchGame) -> str:
        return reverse("matches-api:replay", args=[game.match_id]) + f"?game={game.number}"

    def to_representation(self, game: MatchGame) -> dict[str, Any]:
        data = super().to_representation(game)
        if not game.match.is_finished or match_sealed(game.match, visibility=visibility_of(self.context)):
            data["bot_errors"] = [public_bot_error(error) for error in data["bot_errors"]]
        return data


def public_bot_error(error: dict[str, Any]) -> dict[str, Any]:
    """A bot error (``engine.runner.BotError.to_json``) as spectators of a running match may
    read it: an illegal action the bot chose (which may name a card in its hand) is left out
    of ``error`` and ``text``."""
    out = dict(error)
    if str(out.get("error", "")).startswith("chose an illegal action"):
        out["error"] = "chose an illegal action"
        out["text"] = f"{out.get('bot', 'the bot')} chose an illegal action at action {out.get('action_number')}"
    return out


class MatchSerializer(serializers.ModelSerializer):
    """A match in lists: who plays, how it stands."""

    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None, allow_null=True,
                                       help_text="Who challenged; null for matches the platform made (tournaments, "
                                                 "ladder) and when the account is gone")
    seats = MatchSeatSerializer(many=True, read_only=True)
    winner = serializers.IntegerField(source="winner_seat", read_only=True, allow_null=True,
                                      help_text="The entry (seat number) that won; null until done, or a draw")
    url = serializers.SerializerMethodField()
    api_url = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields = ["id", "url", "api_url", "game", "status", "best_of", "progress", "seats", "winner", "created_by",
                  "created", "started", "finished"]

    def get_url(self, match: Match) -> str:
        return reverse("matches:detail", args=[match.pk])

    def get_api_url(self, match: Match) -> str:
        return reverse("matches-api:detail", args=[match.pk])


class MatchDetailSerializer(MatchSerializer):
    """A match with its games, result and error, as the match page and the socket show it."""

    games = MatchGameSerializer(many=True, read_only=True)
    waiting_for_tiebreak = serializers.SerializerMethodField()
    seed = serializers.SerializerMethodField(help_text="The match seed: null until the match is over (done or "
                                                       "failed)")
    seed_salt = serializers.SerializerMethodField(help_text="The salt of the commitment, 64 hex digits: null until "
                                                            "the match is over")
    seed_commitment = serializers.CharField(read_only=True, help_text=(
        "hex(sha256(bytes.fromhex(seed_salt) + str(seed).encode('ascii'))), public from creation; see "
        "docs/matches.md, 'Provable fairness'"))
    replays_hidden_until = serializers.SerializerMethodField(help_text=(
        "While a deck of the match is hidden from the viewer (entered in an event that has not published its "
        "decklists), when its replays open to them: until then its replays (and the games' replay_url) answer "
        "403. null: the viewer may open them"))

    class Meta(MatchSerializer.Meta):
        fields = MatchSerializer.Meta.fields + ["seed_commitment", "seed", "seed_salt", "params", "attempts",
                                                "result", "error", "games", "waiting_for_tiebreak",
                                                "replays_hidden_until"]

    def _revealed(self, match: Match) -> bool:
        """The match is over and none of its decks is hidden from the viewer (with the
        seed, a hidden deck's shuffles would tell its cards)."""
        return match.seed_revealed and not match_sealed(match, visibility=visibility_of(self.context))

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_seed(self, match: Match) -> int | None:
        return match.seed if self._revealed(match) else None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_seed_salt(self, match: Match) -> str | None:
        return match.seed_salt if self._revealed(match) else None

    def get_waiting_for_tiebreak(self, match: Match) -> bool:
        return match.status == Match.Status.RUNNING and match.lease_owner.startswith("tiebreak:")

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_replays_hidden_until(self, match: Match) -> str | None:
        visibility = visibility_of(self.context)
        until = [u for u in (visibility.hidden_until(seat.deck_version) for seat in match.seats.all()) if u]
        return max(until).isoformat() if until else None


def param_ranges() -> dict[str, str]:
    """Per game, its parameters and their ranges as the engine declares them
    (``Game.param_specs``), for the schema; those the platform sets itself are left out."""

    out: dict[str, str] = {}
    for name in games:
        listed = []
        for spec in games[name].param_specs().values():
            if not spec.organiser:
                continue
            if spec.choices:
                listed.append(f"{spec.name} ({'|'.join(spec.choices)}, default {spec.default})")
            else:
                listed.append(f"{spec.name} ({spec.minimum}..{spec.maximum}, default {spec.default})")
        out[games[name].title or name] = ", ".join(listed) or "none"
    return out


def _decks_field() -> serializers.ListField:
    counts = seat_counts_text()
    return serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**31 - 1), min_length=2, max_length=4,
        error_messages={"min_length": f"a challenge takes 2 to 4 decks ({counts}): at least "
                                      "{min_length}, your own first",
                        "max_length": f"a challenge takes 2 to 4 decks ({counts}): at most {{max_length}}"},
        help_text=f"Deck ids, 2 to 4 ({counts}), all for the same game; the first is the challenger's own deck "
                  "(entry 0), the others are its opponents",
    )


class ChallengeSerializer(serializers.Serializer):
    """``POST /api/matches/``: the decks (ids; each plays its latest version) and best-of."""

    decks = _decks_field()
    best_of = serializers.ChoiceField(
        choices=Match.BEST_OF_CHOICES, default=1, help_text="Games in the match: 1, 3 or 5",
        error_messages={"invalid_choice": "best_of must be 1, 3 or 5, not {input}"})
    params = serializers.DictField(required=False, help_text=(
        "Rules parameters of the game (optional); each must be one the engine declares, within its range "
        "(else 400 naming the bound): " + "; ".join(f"{name}: {ranges}" for name, ranges in param_ranges().items())))

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        # Its messages name the games as registered now, not when this module was imported.
        self.fields["decks"] = _decks_field()
