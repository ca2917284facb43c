"""Pages of live play: ``/live/`` (live now, queue, bots, challenges) and a match's board."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from accounts.selectors import bots_online
from decks.models import Deck
from engine import games
from engine.bots import bot_specs
from live import botlog, selectors
from live.models import LiveMatch


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    """Matches being played now, and for a signed-in player: the challenges made to and by
    them (answered here even without a deck), queue, bots and challenging a player."""
    context = {
        "live_now": selectors.live_now(30),
        "finished": selectors.recent_finished(10),
        "bots": bot_specs(),
        # The bots whose programs are connected now: people challenge them by name.
        "online_bots": bots_online(),
    }
    if request.user.is_authenticated:
        decks = list(Deck.objects.filter(owner=request.user, archived=False).order_by("game", "name"))
        context["decks"] = decks
        # For answering a challenge with a deck of its game, and the seat counts each deck's
        # game offers in the queue and against bots (static/live/lobby.js).
        context["deck_choices"] = [{"id": d.pk, "name": d.name, "game": d.game,
                                    "seats": list(games[d.game].queue_seats) if d.game in games else [2]}
                                   for d in decks]
        context["active"] = selectors.active_match_of(user=request.user)
        # The challenges to and by the player, drawn as the page loads (static/live/lobby.js):
        # lists that appeared only after a first request would push the forms down under
        # a pointer about to press one of them.
        context["challenges"] = selectors.challenge_lists_json(user=request.user)
        context["challenges_shown"] = any(context["challenges"][key] for key in ("received", "sent", "declined"))
    return render(request, "live/index.html", context)


@require_safe
def match(request: HttpRequest, match_id: int) -> HttpResponse:
    """The board of one live match, for its players and for spectators alike: the socket
    decides what each one is sent."""
    try:
        live = selectors.live_get(match_id=match_id)
    except LiveMatch.DoesNotExist:
        raise Http404(f"There is no live match {match_id}.") from None
    rows = selectors.live_seats(live=live)
    seat = selectors.seat_of(rows=rows, user=request.user)
    # The game's own spelling (Game.title), not its name title-cased.
    game_title = games[live.game].title if live.game in games else live.game.title()
    return render(request, "live/match.html", {"live": live, "rows": rows, "seat": seat, "game_title": game_title})


@require_safe
def bot_log(request: HttpRequest, bot_id: int) -> HttpResponse:
    """``/live/bots/<id>/``: the owner's log of a bot: its games, errors, time-outs and
    record against each opponent (``live.botlog``)."""
    bot = botlog.owned_bot(user=request.user, bot_id=bot_id)
    if bot is None:
        raise Http404(f"no bot {bot_id} of yours")
    page = Paginator(botlog.bot_game_seats(bot=bot), botlog.GAMES_PER_PAGE).get_page(request.GET.get("page"))
    context = botlog.bot_log(bot=bot, seats=page.object_list)
    return render(request, "live/bot_log.html", {**context, "page": page})
