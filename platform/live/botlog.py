"""What a bot's owner reads of its bot (docs/bots-api.md): its live games with their
results, every error the site answered and every time-out, and its record against each
opponent. Reads only; a bot's errors are written by the sockets (``accounts.services.
bot_record_error``) and its games by the live services as for anyone.

Pages and API are for the bot's owner (and staff): a bot's errors tell how its program
fails, which is its author's business.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Count

from accounts.models import BotAccount, BotError
from accounts.selectors import bot_errors, bot_is_online
from live.models import LiveMatch, LiveSeat

#: Games per page of the log.
GAMES_PER_PAGE = 25


def owned_bot(*, user, bot_id: int) -> BotAccount | None:
    """Bot ``bot_id`` when ``user`` owns it or is staff; None otherwise (another player's
    bot is not told apart from no bot)."""
    bot = BotAccount.objects.select_related("user", "owner").filter(pk=bot_id).first()
    if bot is None or not (user.is_authenticated and (bot.owner_id == user.pk or user.is_staff)):
        return None
    return bot


def _result(live: LiveMatch, seat: int) -> str:
    """The bot's result in one match: won, lost, drew, or playing."""
    if live.status != LiveMatch.Status.DONE or not live.outcome:
        return "playing"
    places = live.outcome.get("places") or []
    if seat >= len(places):
        return "lost"
    firsts = [s for s, place in enumerate(places) if place == 1]
    if places[seat] == 1:
        return "won" if len(firsts) == 1 else "drew"
    return "lost"


def bot_game_seats(*, bot: BotAccount):
    """The bot's seats in live matches, newest match first (a queryset, to paginate)."""
    return LiveSeat.objects.filter(user=bot.user).select_related("live").order_by("-live__created", "-live_id")


def game_rows(*, bot: BotAccount, seats) -> list[dict[str, Any]]:
    """One row per seat of ``seats`` (the bot's, from :func:`bot_game_seats`): ``match``,
    ``url``, ``game``, ``created``, ``status``, ``result`` (won, lost, drew, playing),
    ``opponents`` (``name``, ``is_bot``), ``timed_out`` (the bot's clock ran out), ``errors``
    (frames of the bot refused in that match)."""
    seats = list(seats)
    lives = [s.live for s in seats]
    others: dict[int, list[LiveSeat]] = defaultdict(list)
    for row in (LiveSeat.objects.filter(live__in=lives).exclude(user=bot.user)
                .select_related("user__bot_account").order_by("seat")):
        others[row.live_id].append(row)
    errors = dict(BotError.objects.filter(bot=bot, match_id__in=[live.match_id for live in lives])
                  .values("match_id").annotate(n=Count("id")).values_list("match_id", "n"))
    return [{
        "match": seat.live.match_id,
        "url": f"/live/{seat.live.match_id}/",
        "game": seat.live.game,
        "created": seat.live.created,
        "status": seat.live.status,
        "result": _result(seat.live, seat.seat),
        "timed_out": seat.timed_out_at is not None,
        "errors": errors.get(seat.live.match_id, 0),
        "opponents": [_opponent(row) for row in others[seat.live_id]],
    } for seat in seats]


def _opponent(row: LiveSeat) -> dict[str, Any]:
    if row.user_id is None:
        return {"name": f"bot {row.bot}", "is_bot": True}
    return {"name": row.user.username, "is_bot": hasattr(row.user, "bot_account")}


def head_to_head(*, bot: BotAccount) -> list[dict[str, Any]]:
    """The bot's finished live games by opponent: ``opponent``, ``is_bot``, ``played``,
    ``won``, ``lost``, ``drew``; most played first. A game of several opponents counts
    against each of them (won: the bot alone first)."""
    seats = list(LiveSeat.objects.filter(user=bot.user, live__status=LiveMatch.Status.DONE).select_related("live"))
    lives = {s.live_id: s for s in seats}
    table: dict[str, dict[str, Any]] = {}
    for row in (LiveSeat.objects.filter(live_id__in=list(lives)).exclude(user=bot.user)
                .select_related("user__bot_account")):
        mine = lives[row.live_id]
        opponent = _opponent(row)
        line = table.setdefault(opponent["name"], {"opponent": opponent["name"], "is_bot": opponent["is_bot"],
                                                   "played": 0, "won": 0, "lost": 0, "drew": 0})
        line["played"] += 1
        line[_result(mine.live, mine.seat)] += 1
    return sorted(table.values(), key=lambda line: (-line["played"], line["opponent"]))


def bot_log(*, bot: BotAccount, seats) -> dict[str, Any]:
    """Everything of the owner's page of ``bot``, with the games of ``seats`` (a page of
    :func:`bot_game_seats`)."""
    return {
        "bot": bot,
        "online": bot_is_online(bot),
        "games": game_rows(bot=bot, seats=seats),
        "timeouts": LiveSeat.objects.filter(user=bot.user, timed_out_at__isnull=False).count(),
        "errors": bot_errors(bot=bot, limit=100),
        "head_to_head": head_to_head(bot=bot),
    }
