"""Telling players, on any page of the site, that a live match where they hold a seat has started.

Each signed-in page opens ``/ws/notify/`` (``live.consumers.NotifyConsumer``), whose
socket joins the player's own channel-layer group (:func:`user_group`). A service that creates live matches
for people calls :func:`live_notify_seats` in its transaction; once it commits, every human
seat's group gets ``{"type": "notify.match", "match": {...}}`` and the page shows the banner
of ``templates/live/_match_ready.html`` (kept current by ``static/live/notify.js``). On page
load the banner is rendered from :func:`matches_waiting` (context processor
:func:`live_matches_waiting`), so a player who was on no page when the match started still
sees it on the next one.

A match as the banner knows it: ``{"id", "url", "title", "opponents", "game"}``; ``opponents``
names the other seats (usernames, or ``bot <spec>``). Nothing about the game itself (hands,
decks, seed) is ever in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from engine import games as engine_games
from live import creation, errors
from live.models import TITLE_MAX, LiveMatch, LiveSeat
from live.selectors import public_deck_name
from web import effects
from web.inputs import parse_id

#: What the banner calls a match that was announced without a title.
DEFAULT_TITLE = "Live match"
#: The banner lists at most this many matches (newest first).
WAITING_LIMIT = 5
#: Longest title and url :func:`live_notify_seats` accepts, in characters.
MAX_TITLE = TITLE_MAX
MAX_URL = 300
#: The cookie where notify.js keeps the ids of the matches whose banner the player dismissed
#: (ids joined by "."), so that the next page does not render them again.
DISMISSED_COOKIE = "live_ready_dismissed"

def user_group(user_id: int) -> str:
    """The channel-layer group of every notify socket of user ``user_id``."""
    return f"user.{int(user_id)}"


def _seat_name(row: LiveSeat) -> str:
    if row.user_id is not None and row.user is not None:
        return row.user.username
    return f"bot {row.bot}"


def _game_title(game: str) -> str:
    return engine_games[game].title if game in engine_games else game


def _notice(live: LiveMatch, rows: Sequence[LiveSeat], *, user_id: int, title: str, url: str | None) -> dict[str, Any]:
    """The banner's match for the player ``user_id`` of ``live`` (``rows``: its seats)."""
    return {
        "id": live.match_id,
        "url": url or live.get_absolute_url(),
        "title": title or live.title or DEFAULT_TITLE,
        "opponents": [_seat_name(r) for r in rows if r.user_id != user_id],
        "game": _game_title(live.game),
    }


# --------------------------------------------------------------------------- reads


def matches_waiting(*, user) -> list[dict[str, Any]]:
    """The live matches being played where ``user`` holds a seat they still play (not
    resigned, not timed out), newest first, at most :data:`WAITING_LIMIT`, as the banner's
    matches (titled as the match was created, ``LiveMatch.title``, else
    :data:`DEFAULT_TITLE`). An anonymous user has none.

    One query (every seat of those matches, with their match and user): it runs on every
    page a signed-in player opens."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    mine = (LiveMatch.objects.filter(status=LiveMatch.Status.ACTIVE, seats__user=user, seats__resigned=False,
                                     seats__timed_out_at__isnull=True)
            .order_by("-created", "-id").values("id")[:WAITING_LIMIT])
    rows = (LiveSeat.objects.filter(live_id__in=mine).select_related("live", "user")
            .order_by("-live__created", "-live_id", "seat"))
    by_match: dict[int, list[LiveSeat]] = {}
    for row in rows:
        by_match.setdefault(row.live_id, []).append(row)
    return [_notice(seats[0].live, seats, user_id=user.pk, title="", url=None) for seats in by_match.values()]


def _dismissed(request: HttpRequest) -> set[int]:
    raw = request.COOKIES.get(DISMISSED_COOKIE, "")
    return {match_id for match_id in map(parse_id, raw.split(".")[:50]) if match_id is not None}


def live_matches_waiting(request: HttpRequest) -> dict[str, Any]:
    """Context processor: ``live_matches_waiting``, the banner's matches for a signed-in
    player (:func:`matches_waiting`), less the match whose board the page is and those the
    player dismissed (:data:`DISMISSED_COOKIE`). Anonymous visitors get nothing (the
    template then renders no banner and opens no socket). Read, with its one query, only
    when a template uses it (the site's base template does, ``live/_match_ready.html``)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    skip = _dismissed(request)
    resolved = getattr(request, "resolver_match", None)
    if resolved is not None and resolved.view_name == "live:match":
        skip.add(int(resolved.kwargs.get("match_id", 0)))
    return {"live_matches_waiting": SimpleLazyObject(
        lambda: [m for m in matches_waiting(user=user) if m["id"] not in skip])}


# --------------------------------------------------------------------------- writes


def _clean_url(url: Any) -> str | None:
    if url is None:
        return None
    # Only a path of this site: the banner's link must never lead elsewhere.
    if not isinstance(url, str) or not url.startswith("/") or url.startswith("//") or "\\" in url:
        raise ValidationError({"url": [f"the url must be a path of this site starting with one '/', not {url!r}"]})
    if len(url) > MAX_URL or any(c.isspace() or ord(c) < 32 for c in url):
        raise ValidationError({"url": [f"the url must be at most {MAX_URL} characters without spaces"]})
    return url


def _notices(announcements: Sequence[tuple[int, str, str | None]]) -> list[tuple[int, dict[str, Any]]]:
    """``(user id, match)`` for every human seat of the announced live matches still being
    played, read in one query."""
    wanted = {match_id: (title, url) for match_id, title, url in announcements}
    rows = (LiveSeat.objects.filter(live__match_id__in=list(wanted), live__status=LiveMatch.Status.ACTIVE)
            .select_related("live", "user").order_by("live__match_id", "seat"))
    by_match: dict[int, list[LiveSeat]] = {}
    for row in rows:
        by_match.setdefault(row.live.match_id, []).append(row)
    out = []
    for match_id, seats in by_match.items():
        title, url = wanted[match_id]
        users = dict.fromkeys(r.user_id for r in seats if r.user_id is not None and not r.bot)
        out.extend((user_id, _notice(seats[0].live, seats, user_id=user_id, title=title, url=url))
                   for user_id in users)
    return out


def live_notify_challenge(*, challenge) -> None:
    """Tell the challenged player's notify sockets of a new challenge, once it commits:
    ``{"type": "notify.challenge", "challenge": {"id", "challenger", "challenger_is_bot",
    "game", "expires", "answer"}}``; ``answer`` is the API path that accepts or declines it.
    A bot's program acts on it (docs/bots-api.md); the site's pages let it pass, as people
    read their challenges on the lobby."""
    def event() -> dict[str, Any]:
        return {"type": "notify.challenge", "challenge": {
            "id": challenge.pk,
            "challenger": challenge.challenger.username,
            "challenger_is_bot": hasattr(challenge.challenger, "bot_account"),
            "game": challenge.game,
            "deck": public_deck_name(challenge.deck_version),
            "expires": challenge.expires.isoformat(),
            "answer": f"/api/live/challenges/{challenge.pk}/",
        }}

    effects.broadcast_on_commit(user_group(challenge.challenged_id), event)


def live_notify_seats(*, match_id: int, title: str = "", url: str | None = None) -> None:
    """Tell every person seated in live match ``match_id`` that it has started, on whatever
    page of the site they are: once the current transaction commits (at once outside one),
    each human seat's :func:`user_group` gets ``{"type": "notify.match", "match": {"id",
    "url", "title", "opponents", "game"}}``. ``title`` (e.g. ``"Spring Swiss, round 2"``;
    default the match's own ``LiveMatch.title``, else "Live match") and ``url`` (a path
    of this site; default the match's board) are what the banner shows and links to.

    ``live.creation.live_create`` does not call this: a caller that creates a live match for
    people calls it in the same transaction (the tournaments do, for every round's matches,
    through :func:`live_notify_many`; queue pairings, accepted challenges and bot games do).
    Seats are read after commit, so the match is announced as it was committed, and not at
    all if it is over by then.

    Raises ``ValidationError`` (``title``, ``url``) for a title or url that cannot be shown,
    and ``LiveError`` ``not_found`` / ``finished`` for a match that does not exist or is
    over; nothing is sent then. Takes no lock: it only reads."""
    live_notify_many([(match_id, title, url)])


def live_notify_many(announcements: Sequence[tuple[int, str, str | None]]) -> None:
    """:func:`live_notify_seats` for many matches at once, ``(match_id, title, url)`` each:
    their seats are read in one query after commit (a round of a live event announces all
    its tables together). Refuses the whole list, sending nothing, if one is refused."""
    cleaned = [(int(match_id), creation.clean_title(title), _clean_url(url)) for match_id, title, url in announcements]
    if not cleaned:
        return
    status = dict(LiveMatch.objects.filter(match_id__in=[m for m, _, _ in cleaned]).values_list("match_id", "status"))
    for match_id, _, _ in cleaned:
        if match_id not in status:
            raise errors.LiveError("not_found", f"there is no live match {match_id}", status=404)
        if status[match_id] != LiveMatch.Status.ACTIVE:
            raise errors.LiveError("finished", f"live match {match_id} is over")

    def send() -> None:
        notices = effects.built(lambda: _notices(cleaned), f"the notices of {len(cleaned)} live match(es)")
        for user_id, match in notices or ():
            effects.group_send(user_group(user_id), {"type": "notify.match", "match": match})

    transaction.on_commit(send)
