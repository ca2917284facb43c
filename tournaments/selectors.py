"""Reads of the tournaments app, for pages, the API and the live socket."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.urls import reverse
from django.utils import timezone

from decks.permissions import deck_visibility
from live.models import LiveMatch, LiveSeat
from live.selectors import public_clocks, public_cutoff
from matches.models import Match
from tournaments import plan
from tournaments.live import check_in_window
from tournaments.models import Entry, Pairing, Tiebreak, Tournament
from tournaments.permissions import can_manage_tournament

RUNNING = (Tournament.State.RUNNING, Tournament.State.PAUSED)
FINISHED = (Tournament.State.FINISHED, Tournament.State.CANCELLED)


def tournament_list(*, game: str | None = None, format: str | None = None, state: str | None = None,
                    user=None) -> QuerySet[Tournament]:
    """Published events (and the ``user``'s own drafts), with entry counts, soonest first."""
    rows = Tournament.objects.select_related("organiser", "winner", "winner__player").annotate(
        entry_count=Count("entries", filter=Q(entries__waitlisted=False, entries__dropped=False)))
    visible = ~Q(state=Tournament.State.DRAFT)
    if user is not None and user.is_authenticated:
        visible |= Q(organiser=user)
    rows = rows.filter(visible)
    if game:
        rows = rows.filter(game=game)
    if format:
        rows = rows.filter(format=format)
    if state:
        rows = rows.filter(state=state)
    return rows.order_by("-starts_at", "-id")


def tournament_get(*, tournament_id: int) -> Tournament:
    """One event; ``Tournament.DoesNotExist`` if there is none."""
    return Tournament.objects.select_related("organiser", "winner", "winner__player", "winner__deck").get(
        pk=tournament_id)


def entry_list(*, tournament: Tournament) -> list[Entry]:
    return list(tournament.entries.select_related("player", "deck", "deck_version").order_by(
        "waitlisted", "seed", "created", "id"))


def entry_deck(entry: Entry, *, viewer=None, visibility=None, manager: bool | None = None) -> dict[str, Any]:
    """``deck_id``, ``deck`` (name), ``version`` and ``hidden_until`` of an entry's deck as
    ``viewer`` (None: an anonymous visitor) may see them. The event's organiser and staff
    see every entry's deck; others see a deck only when ``decks.permissions`` lets them
    (not while this event, or another, withholds it: docs/security.md), else its hidden
    label with null id and version. ``deck_id`` (the deck page's address, so the list) is
    also null until this event publishes its decklists, but for the entry's own player."""
    if manager is None:
        manager = can_manage_tournament(viewer, entry.tournament)
    if visibility is None:
        visibility = deck_visibility(viewer)
    if manager:
        return {"deck_id": entry.deck_id, "deck": entry.deck.name, "version": entry.deck_version.number,
                "hidden_until": None}
    shown = visibility.deck_json(entry.deck_version)
    mine = viewer is not None and viewer.is_authenticated and viewer.pk == entry.player_id
    if shown["deck_id"] is not None and not mine and not (entry.tournament.has_started
                                                          and published(entry.tournament)):
        shown["deck_id"] = None
    return shown


def entry_names(tournament: Tournament, viewer=None) -> dict[int, dict[str, Any]]:
    """Entry id -> {player, deck, deck_id, version, hidden_until, dropped, ...} for labels,
    each deck as ``viewer`` (None: an anonymous visitor) may see it (:func:`entry_deck`)."""
    manager = can_manage_tournament(viewer, tournament)
    visibility = deck_visibility(viewer)
    out = {}
    for e in tournament.entries.select_related("player", "deck", "deck_version"):
        e.tournament = tournament
        out[e.pk] = {"id": e.pk, "player": e.player.username,
                     **entry_deck(e, viewer=viewer, visibility=visibility, manager=manager),
                     "dropped": e.dropped, "seed": e.seed,
                     "plays": e.plays, "pilot": e.deck_version.pilot if e.plays == Entry.Plays.BOT else "",
                     "drop_reason": e.drop_reason}
    return out


def tournament_progress(*, tournament: Tournament) -> dict[str, Any]:
    """The progress line: round, rounds planned, matches done of the current round."""
    current = tournament.round_set.filter(number=tournament.current_round).first()
    done = total = 0
    failed = 0
    stage = ""
    if current is not None:
        stage = current.get_stage_display()
        counts = current.pairings.aggregate(
            total=Count("id"), done=Count("id", filter=Q(status=Pairing.Status.DONE)),
            failed=Count("id", filter=Q(status=Pairing.Status.FAILED)))
        done, total, failed = counts["done"], counts["total"], counts["failed"]
    planned = tournament.total_rounds if current is None or current.stage in plan.GROUP_STAGES else None
    if tournament.state == Tournament.State.OPEN:
        text = "Registration open"
    elif tournament.state == Tournament.State.DRAFT:
        text = "Draft"
    elif tournament.state == Tournament.State.CANCELLED:
        text = "Cancelled"
    elif tournament.state == Tournament.State.FINISHED:
        text = f"Finished after {tournament.current_round} round{'s' if tournament.current_round != 1 else ''}"
    elif current is None:
        text = "Starting"
    else:
        of = f" of {planned}" if planned else f" ({stage})"
        text = f"Round {current.number}{of}: {done} of {total} matches done"
        if failed:
            text += f", {failed} failed (waiting for the organiser)"
        if tournament.state == Tournament.State.PAUSED:
            text += " (paused)"
    return {"round": tournament.current_round, "rounds": planned, "stage": stage, "done": done, "total": total,
            "failed": failed, "text": text}


def standings_rows(*, tournament: Tournament, viewer=None) -> list[dict[str, Any]]:
    """Every entry's line, best first: the Swiss/pod/round-robin standings with every
    tiebreaker column, and for an elimination stage the bracket place (``place``); decks
    as ``viewer`` may see them (:func:`entry_names`)."""
    names = entry_names(tournament, viewer)
    if not tournament.has_started:
        return []
    rows: list[dict[str, Any]] = []
    fmt = plan.format_of(tournament)
    if not fmt.uses_tiebreaks:
        placings = plan.placings(tournament)
        ordered = sorted(names.values(), key=lambda n: (placings.get(n["id"], 10**6), n["seed"] or 10**6))
        for position, info in enumerate(ordered, start=1):
            rows.append({"position": position, "place": placings.get(info["id"]), "entry": info})
        return rows
    table = plan.group_table(tournament)
    placings = plan.placings(tournament) if fmt.has_bracket else {}
    for st in table:
        row = asdict(st)
        row["tied_with"] = list(st.tied_with)
        row["entry"] = names.get(st.player)
        row["place"] = placings.get(st.player)
        rows.append(row)
    return rows


def bracket_view(*, tournament: Tournament, viewer=None) -> dict[str, Any] | None:
    """The bracket's drawing plan (``formats.Bracket.layout``) with entry labels, each
    played match's link and score (games won per slot, ``score`` as "2–1" in slot order),
    or None when the event has no bracket (yet).

    A bracket reset that turned out not to be needed (the winners-bracket player won the
    grand final) is left out of ``sections``; one not decided yet is titled "if needed"."""
    bracket = plan.bracket_of(tournament)
    if bracket is None:
        return None
    layout = bracket.layout(plan.bracket_results(tournament))
    names = entry_names(tournament, viewer)
    pairings = {p.key: p for p in Pairing.objects.filter(round__tournament=tournament,
                                                        round__stage__in=plan.BRACKET_STAGES).exclude(key="")}
    sections: dict[str, list[dict[str, Any]]] = {}
    for rnd in layout.get("rounds", []):
        for match in rnd.get("matches", []):
            pairing = pairings.get(match["key"])
            result = (pairing.result or {}) if pairing is not None and match.get("played") else {}
            walkover = bool(result.get("walkover"))
            wins = {} if walkover or pairing is None else dict(zip(pairing.entries, result.get("game_wins") or [],
                                                                   strict=False))
            players_ = list(match.get("players", []))
            sources = list(match.get("sources", [])) + [""] * len(players_)
            match["slots"] = [
                {"label": names.get(p) if p is not None else None, "source": sources[i],
                 "winner": p is not None and p == match.get("winner"),
                 "loser": p is not None and p == match.get("loser"),
                 "score": wins.get(p) if p is not None else None}
                for i, p in enumerate(players_)
            ]
            scores = [slot["score"] for slot in match["slots"]]
            match["score"] = "–".join(str(x) for x in scores) if scores and None not in scores else ""
            match["walkover"] = walkover
            match["match_url"] = (reverse("matches:detail", args=[pairing.match_id])
                                  if pairing is not None and pairing.match_id else None)
            match["status"] = pairing.status if pairing is not None else ""
        if rnd.get("bracket") == "GF-reset":
            if all(m.get("skipped") for m in rnd["matches"]):
                continue
            if not any(m.get("players") and None not in m["players"] for m in rnd["matches"]):
                rnd["title"] = "Bracket reset (if needed)"
        bracket_name = {"W": "Winners bracket", "L": "Losers bracket", "GF": "Grand final",
                        "GF-reset": "Grand final", "3rd": "Third place"}.get(rnd.get("bracket", "W"), "Bracket")
        if layout.get("kind") == "single" and rnd.get("bracket") == "W":
            bracket_name = "Bracket"
        sections.setdefault(bracket_name, []).append(rnd)
    layout["sections"] = [{"title": title, "rounds": rounds} for title, rounds in sections.items()]
    layout["champion_label"] = names.get(layout.get("champion")) if layout.get("champion") else None
    return layout


def round_list(*, tournament: Tournament) -> list[dict[str, Any]]:
    """Every paired round, first to last: number, stage, whether it is finished, and the
    address of its page."""
    return [{"number": r.number, "stage": r.get_stage_display(), "finished": r.finished is not None,
             "url": reverse("tournaments:round", args=[tournament.pk, r.number])}
            for r in tournament.round_set.order_by("number")]


def pairing_rows(*, tournament: Tournament, number: int | None = None, viewer=None) -> list[dict[str, Any]]:
    """The pairings of round ``number`` (default the current one) with their match status;
    decks as ``viewer`` may see them (:func:`entry_names`)."""
    number = number or tournament.current_round
    rnd = tournament.round_set.filter(number=number).first()
    if rnd is None:
        return []
    names = entry_names(tournament, viewer)
    pairings = list(rnd.pairings.select_related("match").order_by("table"))
    tables = live_tables(pairings) if tournament.is_live else {}
    return [pairing_json(pairing, names, live=tables.get(pairing.pk)) for pairing in pairings]


def live_tables(pairings: list[Pairing]) -> dict[int, dict[str, Any]]:
    """Per pairing id, its current live game: board address, game number, state, and each
    seat's clock (time left in ms, and whether it runs) and presence, by pairing entry,
    as the game's spectators see them (``spectator_delay`` seconds behind,
    ``live.selectors.public_clocks``). Two queries for the whole round."""

    match_ids = [p.match_id for p in pairings if p.match_id]
    lives = {lm.match_id: lm for lm in LiveMatch.objects.filter(match_id__in=match_ids).defer("replay")}
    seats: dict[int, list[LiveSeat]] = {}
    for row in LiveSeat.objects.filter(live__match_id__in=match_ids).order_by("seat"):
        seats.setdefault(row.live_id, []).append(row)
    now = timezone.now()
    out: dict[int, dict[str, Any]] = {}
    for pairing in pairings:
        game = lives.get(pairing.match_id)
        if game is None:
            continue
        seat_entries = list(pairing.seat_entries or pairing.entries)
        clocks = {}
        rows = seats.get(game.pk, [])
        cutoff = public_cutoff(game, now) or now
        for row, clock in zip(rows, public_clocks(game, rows, now), strict=True):
            if row.seat < len(seat_entries):
                clocks[seat_entries[row.seat]] = {"remaining_ms": clock["remaining_ms"], "running": clock["running"],
                                                  "present": not row.user_id or (row.connected_at is not None
                                                                                 and row.connected_at <= cutoff)}
        out[pairing.pk] = {
            "url": reverse("live:match", args=[pairing.match_id]),
            "game": len(pairing.series) + (0 if pairing.status == Pairing.Status.DONE else 1),
            "active": game.status == LiveMatch.Status.ACTIVE,
            "spectator_delay": game.spectator_delay,
            "clocks": [clocks.get(e) for e in pairing.entries],
        }
    return out


def pairing_json(pairing: Pairing, names: dict[int, dict[str, Any]], *, live: dict[str, Any] | None = None
                 ) -> dict[str, Any]:
    """One table as pages and the API show it; ``live`` is its live game (``live_tables``)."""
    match: Match | None = pairing.match
    return {
        "table": pairing.table,
        "key": pairing.key,
        "entries": [names.get(e, {"id": e}) for e in pairing.entries],
        "bye": pairing.is_bye and not (pairing.result or {}).get("sit_out"),
        "sit_out": bool((pairing.result or {}).get("sit_out")),
        "status": pairing.status,
        "match": match.pk if match else None,
        "match_status": match.status if match else None,
        "match_url": reverse("matches:detail", args=[match.pk]) if match else None,
        "match_progress": match.progress if match else None,
        "replaced": list(pairing.replaced),
        "result": pairing.result,
        "winner": _winner_of(pairing),
        "live": live,
        "series": [{"match": g["match"], "places": g["places"], "forfeit": g.get("forfeit") or [],
                    "adjudicated": bool(g.get("adjudicated"))} for g in pairing.series],
    }


def _winner_of(pairing: Pairing) -> int | None:
    result = pairing.result or {}
    places = result.get("places") or []
    if result.get("sit_out") or not places:
        return None
    firsts = [e for e, place in zip(pairing.entries, places, strict=False) if place == 1]
    return firsts[0] if len(firsts) == 1 else None


def failed_pairings(*, tournament: Tournament) -> list[Pairing]:
    return list(Pairing.objects.filter(round__tournament=tournament, status=Pairing.Status.FAILED)
                .select_related("round", "match"))


def tiebreak_list(*, tournament: Tournament) -> list[Tiebreak]:
    return list(tournament.tiebreaks.order_by("created", "id"))


def published(tournament: Tournament, now=None) -> bool:
    """Whether the organiser's publication time has come (no time set: at once)."""
    return tournament.publish_at is None or (now or timezone.now()) >= tournament.publish_at


def tournament_seed_visible(tournament: Tournament) -> int | None:
    """The tournament seed is secret until the event is over (it decides every match) and
    the organiser's publication time has come."""
    return tournament.seed if tournament.is_over and published(tournament) else None


def my_match(*, tournament: Tournament, user) -> dict[str, Any] | None:
    """What ``user`` plays now in ``tournament``: their entry (check-in, dropped) and
    their table of the current round with its live board, opponents and result, or what
    they wait for. None when they have no entry."""

    if not (user and user.is_authenticated):
        return None
    entry = tournament.entries.filter(player=user).first()
    if entry is None:
        return None
    window = check_in_window(tournament)
    out: dict[str, Any] = {
        "entry": entry.pk, "plays": entry.plays, "checked_in": entry.checked_in, "dropped": entry.dropped,
        "drop_reason": entry.drop_reason, "waitlisted": entry.waitlisted, "absences": entry.absences,
        "check_in": ({"opens": window[0], "closes": window[1],
                      "open": tournament.state == Tournament.State.OPEN and window[0] <= timezone.now()}
                     if window else None),
        "round": tournament.current_round, "table": None, "status": "waiting", "match": None, "board_url": None,
        "match_url": None, "opponents": [], "game": None, "result": None, "text": "",
    }
    rnd = tournament.round_set.filter(number=tournament.current_round).first()
    pairing = None
    if rnd is not None:
        pairing = next((p for p in rnd.pairings.select_related("match").order_by("table")
                        if entry.pk in p.entries), None)
    if tournament.state in (Tournament.State.DRAFT, Tournament.State.OPEN):
        out["text"] = "The event has not started yet."
    elif entry.dropped:
        out["status"] = "dropped"
        out["text"] = f"Your entry dropped: {entry.drop_reason}." if entry.drop_reason else "Your entry dropped."
    elif tournament.is_over:
        out["status"] = "over"
        out["text"] = "The event is over."
    if pairing is None:
        if not out["text"]:
            out["text"] = "You are not paired in this round."
        return out
    names = entry_names(tournament, user)
    tables = live_tables([pairing]) if tournament.is_live else {}
    row = pairing_json(pairing, names, live=tables.get(pairing.pk))
    out.update(table=pairing.table, match=pairing.match_id, result=pairing.result, game=(row["live"] or {}).get("game"),
               opponents=[names.get(e, {"id": e}) for e in pairing.entries if e != entry.pk],
               match_url=row["match_url"], board_url=(row["live"] or {}).get("url"))
    if out["status"] in ("dropped", "over"):
        pass  # the entry's own state says it all; the table stays for reference
    elif pairing.is_bye:
        out["status"] = "bye"
        out["text"] = out["text"] or f"Round {rnd.number}: you have a bye."
    elif pairing.status == Pairing.Status.DONE:
        out["status"] = "done"
        out["text"] = out["text"] or f"Round {rnd.number} is over for you: waiting for the other tables."
    elif row["live"] and row["live"]["active"]:
        out["status"] = "playing"
        out["text"] = out["text"] or f"Round {rnd.number}, table {pairing.table}: your game is on."
    else:
        out["status"] = "waiting"
        out["text"] = out["text"] or f"Round {rnd.number}, table {pairing.table}: waiting for your game."
    return out
