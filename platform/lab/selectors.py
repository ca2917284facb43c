"""Reads of the deck lab: runs, their figures (``lab.stats``), their matches for the CSV
and the list, and one match's replay page for the viewer."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

from django.db.models import QuerySet

from decks.models import DeckVersion
from decks.permissions import DeckVisibility
from lab.models import LabMatch, LabRun
from lab.stats import run_figures
from matches.replays import frames_page

#: The columns the figures read (never the replay).
FIGURE_COLUMNS = ("number", "outcome", "deck_seat", "opponent_version_id", "actions", "ending", "usage")


def lab_run_get(*, run_id: int) -> LabRun:
    """``LabRun.DoesNotExist`` if there is none."""
    return LabRun.objects.select_related("owner", "deck", "deck_version", "deck_version__deck").get(pk=run_id)


def lab_runs(*, user) -> QuerySet[LabRun]:
    """The runs ``user`` may see, newest first: their own (staff: every run)."""
    runs = LabRun.objects.select_related("owner", "deck", "deck_version", "deck_version__deck")
    return runs if user.is_staff else runs.filter(owner=user)


def lab_open_run(*, user) -> LabRun | None:
    return LabRun.objects.filter(owner=user, status__in=LabRun.OPEN).first()


def field_labels(run: LabRun, visibility: DeckVisibility) -> dict[int, dict[str, Any]]:
    """Per opponent version id: its deck id, name, version and owner as the viewer may see them."""
    versions = DeckVersion.objects.select_related("deck", "deck__owner").filter(pk__in=run.field_versions)
    labels = {}
    for version in versions:
        label = visibility.deck_json(version)
        label["owner"] = version.deck.owner.username if label["deck_id"] is not None else None
        label["version_id"] = version.pk
        labels[version.pk] = label
    return labels


def lab_summary(*, run: LabRun, visibility: DeckVisibility) -> dict[str, Any]:
    """The run as its page and ``GET /api/lab/<id>/`` show it: status, progress and every
    figure so far (partial while it runs)."""
    rows = list(LabMatch.objects.filter(run=run).order_by("number").values(*FIGURE_COLUMNS))
    deck_cards = [name for name, _n in run.deck_version.to_engine().cards]
    figures = run_figures(rows, deck_cards=deck_cards)
    labels = field_labels(run, visibility)
    figures["by_opponent"] = [
        {**labels.get(version_id, {"version_id": version_id, "deck": "?", "deck_id": None}),
         **figures["by_opponent"].get(version_id, {"matches": 0, "wins": 0, "draws": 0, "losses": 0,
                                                    "win_rate": None, "low": None, "high": None,
                                                    "needs_more_games": True})}
        for version_id in run.field_versions]
    return {
        "id": run.pk,
        "game": run.game,
        "deck": {"id": run.deck_id, "name": run.deck.name, "version": run.deck_version.number},
        "field_kind": run.field_kind,
        "pilot": run.pilot,
        "opponent_pilot": run.opponent_pilot,
        "matches_wanted": run.matches_wanted,
        "progress": run.progress,
        "status": run.status,
        "error": run.error,
        "created": run.created.isoformat(),
        "started": run.started.isoformat() if run.started else None,
        "finished": run.finished.isoformat() if run.finished else None,
        **figures,
        # Each match recorded so far, [number, outcome, deck_seat], for the links to replays.
        "results": [[row["number"], row["outcome"], row["deck_seat"]] for row in rows],
    }


def lab_matches(*, run: LabRun) -> QuerySet[LabMatch]:
    """The run's matches in order, without their replays."""
    return LabMatch.objects.filter(run=run).defer("replay").order_by("number")


CSV_HEADER = ["match", "opponent_deck_id", "opponent_deck", "opponent_version", "seat", "pilot", "opponent_pilot",
              "outcome", "actions", "ending", "cards_drawn", "cards_played"]


def lab_csv_rows(*, run: LabRun, visibility: DeckVisibility) -> Iterator[str]:
    """The run's matches as CSV lines, the header first (streamed: at most 2,000 rows)."""
    labels = field_labels(run, visibility)
    buffer = io.StringIO()
    writer = csv.writer(buffer)

    def line(values) -> str:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow(values)
        return buffer.getvalue()

    yield line(CSV_HEADER)
    for match in lab_matches(run=run).iterator(chunk_size=500):
        label = labels.get(match.opponent_version_id, {})
        usage = match.usage.get("deck") or {}
        yield line([match.number, label.get("deck_id") or "", label.get("deck") or "", label.get("version") or "",
                    "play" if match.deck_seat == 0 else "draw", match.pilot, match.opponent_pilot, match.outcome,
                    match.actions, match.ending, "; ".join(usage.get("drawn") or ()),
                    "; ".join(usage.get("played") or ())])


#: Positions a replay page holds at most (the viewer asks for 50).
REPLAY_PAGE_MAX = 200


def lab_replay_page(*, run: LabRun, match: LabMatch, visibility: DeckVisibility, start: int,
                    count: int) -> dict[str, Any]:
    """One page of a lab match's replay, in the shape of the match replay API
    (``matches.selectors.match_replay_page``) so that the same viewer draws it. A lab
    match is finished when it is written, so every seat's cards are shown."""
    replay = match.load_replay()
    data = replay.to_json()
    for key in ("meta", "digests", "actions", "seed"):
        data.pop(key, None)
    total = len(replay.actions) + 1
    start = max(0, min(int(start), total - 1))
    count = max(1, min(int(count), REPLAY_PAGE_MAX))
    frames = frames_page(replay, start=start, stop=start + count)
    labels = field_labels(run, visibility)
    opponent = labels.get(match.opponent_version_id, {})
    mine = {"deck": run.deck.name, "owner": run.owner.username, "pilot": match.pilot}
    theirs = {"deck": opponent.get("deck") or "?", "owner": opponent.get("owner") or "", "pilot": match.opponent_pilot}
    seats = [mine, theirs] if match.deck_seat == 0 else [theirs, mine]
    data.update(
        match=match.number, number=1, games=1, outcome=replay.outcome.to_json() if replay.outcome else None,
        tiebreak=[], seats=[{**info, "seat": seat, "entry": seat} for seat, info in enumerate(seats)],
        bot_errors=[], verified_at=None, all_seats=True, actions_count=len(replay.actions), total_frames=total,
        count=len(frames), next_from=start + len(frames) if start + len(frames) < total else None,
        frames=frames,
    )
    data["from"] = start
    return json.loads(json.dumps(data, default=str))
