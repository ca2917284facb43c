"""The JSON API of live play, under ``/api/live/`` (session or token auth; errors in the
API's one shape, config/api.py).

- ``GET /api/live/now/``: matches being played now;
- ``GET|POST|DELETE /api/live/queue/``: where I stand in matchmaking / join with
  ``{"deck": id, "seats": 2}`` / leave;
- ``POST /api/live/bot/``: play a bot now, ``{"deck": id, "bot": "greedy", "seats": 2}``;
- every create above and below takes an ``Idempotency-Key`` header: the same key sent
  again gets the first answer and creates nothing (web/idempotency.py);
- ``GET /api/live/challenges/``: challenges made to and by me (each list at most
  ``selectors.CHALLENGES_LISTED``, newest first);
  ``POST /api/live/challenges/``: ``{"username": "...", "deck": id}``;
  ``POST /api/live/challenges/<id>/``: ``{"accept": true, "deck": id}`` or ``{"accept": false}``
  (declines; the challenger cancels with the same);
- ``GET /api/live/challenges/waiting/``: how many challenges wait for my answer, and the
  newest (the site-wide notice asks this).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers
from rest_framework.exceptions import NotFound
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import ErrorSerializer
from decks.models import Deck, DeckVersion
from live import botlog, challenges, matchmaking, selectors
from web.idempotency import IDEMPOTENCY_KEY, api_create_once
from web.inputs import MAX_ID, parse_id


class QueueJoinSerializer(serializers.Serializer):
    deck = serializers.IntegerField(min_value=0, max_value=MAX_ID, help_text="One of your decks")
    seats = serializers.IntegerField(required=False,
                                     help_text="One of the game's queue seat counts; default 2")


class QueueStatusSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=["idle", "waiting", "matched"])
    match = serializers.IntegerField(required=False)
    url = serializers.CharField(required=False)
    game = serializers.CharField(required=False)
    seats = serializers.IntegerField(required=False)
    waited_seconds = serializers.IntegerField(required=False)


class PlayBotSerializer(serializers.Serializer):
    deck = serializers.IntegerField(min_value=0, max_value=MAX_ID)
    bot = serializers.CharField(required=False, help_text="A bot spec: random, greedy, search:fast, ...")
    seats = serializers.IntegerField(required=False)


class LivePlayerSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    name = serializers.CharField()
    pilot = serializers.CharField()
    deck = serializers.CharField()
    timed_out = serializers.BooleanField()
    resigned = serializers.BooleanField()


class LiveMatchSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    game = serializers.CharField()
    url = serializers.CharField()
    created = serializers.DateTimeField()
    actions = serializers.IntegerField(help_text="Actions played, as spectators see them (behind by the match's "
                                                 "spectator delay)")
    players = LivePlayerSerializer(many=True)


class LiveNowSerializer(serializers.Serializer):
    results = LiveMatchSerializer(many=True)


class ChallengeCreateSerializer(serializers.Serializer):
    username = serializers.CharField()
    deck = serializers.IntegerField(min_value=0, max_value=MAX_ID)


class ChallengeAnswerSerializer(serializers.Serializer):
    accept = serializers.BooleanField()
    deck = serializers.IntegerField(required=False, min_value=0, max_value=MAX_ID)


class ChallengeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    challenger = serializers.CharField()
    challenged = serializers.CharField()
    game = serializers.CharField()
    game_title = serializers.CharField(help_text="The game's name for people")
    deck = serializers.CharField(help_text="The challenger's deck")
    status = serializers.CharField()
    expires = serializers.DateTimeField()
    match = serializers.IntegerField(allow_null=True)
    url = serializers.CharField(allow_null=True)


class ChallengeListSerializer(serializers.Serializer):
    received = ChallengeSerializer(many=True, help_text="Pending, made to me (newest first, at most 20)")
    sent = ChallengeSerializer(many=True, help_text="Pending, made by me (newest first, at most 20)")
    accepted = ChallengeSerializer(many=True, help_text="Mine accepted lately whose match is still being played")
    declined = ChallengeSerializer(many=True, help_text="Mine declined in the last 10 minutes")


class ChallengesWaitingSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Pending challenges made to me")
    latest = ChallengeSerializer(allow_null=True, help_text="The newest of them, or null")


def _deck_version(user, value, field: str = "deck") -> DeckVersion:
    deck_id = parse_id(value)
    if deck_id is None:
        raise ValidationError({field: [f"'{field}' must be the id of one of your decks"]})
    deck = Deck.objects.filter(pk=deck_id, archived=False).first()
    if deck is None:
        raise ValidationError({field: [f"there is no deck {value}"]})
    if deck.owner_id != user.pk:
        raise ValidationError({field: [f"deck '{deck.name}' is not yours"]})
    version = deck.latest_version
    if version is None:
        raise ValidationError({field: [f"deck '{deck.name}' has no version"]})
    return version


def _seats(value) -> int:
    if value is None:
        return 2
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError({"seats": ["'seats' must be a whole number, one of the game's queue seat counts"]})
    return value


def _match_json(live) -> dict:
    """A running match as anyone may see it: as its spectators do, ``spectator_delay``
    seconds behind (the action count, arrivals and time-outs of that moment)."""
    rows = list(live.seats.all())
    cutoff = selectors.public_cutoff(live)
    return {
        "match": live.match_id,
        "game": live.game,
        "url": f"/live/{live.match_id}/",
        "created": live.created.isoformat(),
        "actions": selectors.public_length(live, cutoff),
        "players": selectors.players_json(rows, as_of=cutoff),
    }


class LiveNow(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=LiveNowSerializer, operation_id="live_now")
    def get(self, request):
        return Response({"results": [_match_json(live) for live in selectors.live_now(50)]})


class Queue(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses=QueueStatusSerializer, operation_id="live_queue_status")
    def get(self, request):
        return Response(selectors.queue_status(user=request.user))

    @extend_schema(request=QueueJoinSerializer, responses={201: QueueStatusSerializer}, operation_id="live_queue_join",
                   parameters=[IDEMPOTENCY_KEY])
    def post(self, request):
        data = request.data if isinstance(request.data, dict) else {}

        def join():
            version = _deck_version(request.user, data.get("deck"))
            matchmaking.live_queue_join(user=request.user, deck_version=version, seats=_seats(data.get("seats")))
            return 201, selectors.queue_status(user=request.user)

        return api_create_once(request, scope="live.queue", create=join)

    @extend_schema(responses={200: QueueStatusSerializer}, operation_id="live_queue_leave")
    def delete(self, request):
        left = matchmaking.live_queue_leave(user=request.user)
        return Response({"left": left, **selectors.queue_status(user=request.user)})


class PlayBot(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=PlayBotSerializer, responses={201: LiveMatchSerializer}, operation_id="live_play_bot",
                   parameters=[IDEMPOTENCY_KEY])
    def post(self, request):
        data = request.data if isinstance(request.data, dict) else {}
        version = _deck_version(request.user, data.get("deck"))
        bot = data.get("bot") or "greedy"
        if not isinstance(bot, str):
            raise ValidationError({"bot": ["'bot' must be a bot spec such as greedy or search:fast"]})

        def play():
            live = challenges.live_play_bot(user=request.user, deck_version=version, bot=bot,
                                            seats=_seats(data.get("seats")))
            return 201, _match_json(live)

        return api_create_once(request, scope="live.bot", create=play)


class Challenges(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses=ChallengeListSerializer, operation_id="live_challenges_list")
    def get(self, request):
        return Response(selectors.challenge_lists_json(user=request.user))

    @extend_schema(request=ChallengeCreateSerializer, responses={201: ChallengeSerializer},
                   operation_id="live_challenges_create", parameters=[IDEMPOTENCY_KEY])
    def post(self, request):
        data = request.data if isinstance(request.data, dict) else {}
        version = _deck_version(request.user, data.get("deck"))
        username = data.get("username")
        if not isinstance(username, str) or not username.strip():
            raise ValidationError({"username": ["name the player to challenge"]})

        def challenge():
            made = challenges.live_challenge(challenger=request.user, challenged_username=username,
                                             deck_version=version)
            return 201, selectors.challenge_json(made)

        return api_create_once(request, scope="live.challenge", create=challenge)


class ChallengesWaiting(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses=ChallengesWaitingSerializer, operation_id="live_challenges_waiting")
    def get(self, request):
        waiting = selectors.challenges_waiting(user=request.user)
        latest = waiting["latest"]
        return Response({"count": waiting["count"], "latest": selectors.challenge_json(latest) if latest else None})


class ChallengeAnswer(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=ChallengeAnswerSerializer, responses={200: ChallengeSerializer, 409: ErrorSerializer},
                   operation_id="live_challenges_answer")
    def post(self, request, challenge_id: int):
        data = request.data if isinstance(request.data, dict) else {}
        accept = data.get("accept")
        if not isinstance(accept, bool):
            raise ValidationError({"accept": ["'accept' must be true or false"]})
        version = _deck_version(request.user, data.get("deck")) if accept else None
        challenge = challenges.live_challenge_answer(challenge_id=challenge_id, user=request.user, accept=accept,
                                                     deck_version=version)
        return Response(selectors.challenge_json(challenge))


# --------------------------------------------------------------------------- a bot's log


class BotOpponentSerializer(serializers.Serializer):
    name = serializers.CharField()
    is_bot = serializers.BooleanField()


class BotGameSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    url = serializers.CharField()
    game = serializers.CharField()
    created = serializers.DateTimeField()
    status = serializers.CharField()
    result = serializers.ChoiceField(choices=["won", "lost", "drew", "playing"])
    timed_out = serializers.BooleanField()
    errors = serializers.IntegerField(help_text="The bot's frames refused in this match")
    opponents = BotOpponentSerializer(many=True)


class BotHeadToHeadSerializer(serializers.Serializer):
    opponent = serializers.CharField()
    is_bot = serializers.BooleanField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    lost = serializers.IntegerField()
    drew = serializers.IntegerField()


class BotErrorSerializer(serializers.Serializer):
    match = serializers.IntegerField(allow_null=True)
    code = serializers.CharField()
    message = serializers.CharField()
    created = serializers.DateTimeField()


class BotRecordSerializer(serializers.Serializer):
    bot = serializers.CharField()
    online = serializers.BooleanField()
    offline_reason = serializers.CharField()
    timeouts = serializers.IntegerField()
    head_to_head = BotHeadToHeadSerializer(many=True)
    errors = BotErrorSerializer(many=True)


def _own_bot(request, bot_id: int):
    bot = botlog.owned_bot(user=request.user, bot_id=bot_id)
    if bot is None:
        raise NotFound(f"no bot {bot_id} of yours")
    return bot


class BotGames(GenericAPIView):
    """GET: the bot's live games, newest first, paginated; the bot's owner only."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(operation_id="live_bot_games", responses={200: BotGameSerializer(many=True),
                                                             404: ErrorSerializer})
    def get(self, request, bot_id: int):
        bot = _own_bot(request, bot_id)
        page = self.paginate_queryset(botlog.bot_game_seats(bot=bot))
        return self.get_paginated_response(botlog.game_rows(bot=bot, seats=page))


class BotRecord(APIView):
    """GET: the bot's record against each opponent, the newest 100 errors answered to its
    frames, its time-outs and whether it is online; the bot's owner only."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(operation_id="live_bot_record", responses={200: BotRecordSerializer, 404: ErrorSerializer})
    def get(self, request, bot_id: int):
        bot = _own_bot(request, bot_id)
        log = botlog.bot_log(bot=bot, seats=[])
        return Response({
            "bot": bot.name,
            "online": log["online"],
            "offline_reason": bot.offline_reason,
            "timeouts": log["timeouts"],
            "head_to_head": log["head_to_head"],
            "errors": [{"match": e.match_id, "code": e.code, "message": e.message, "created": e.created}
                       for e in log["errors"]],
        })
