"""Writes of the deck lab: starting and cancelling a run, and the chunk lifecycle the
workers follow (claim, renew, record, fail) with the sweeper that repairs it.

Exactly once: a chunk's matches are written in the same transaction that marks the chunk
done, under the chunk's row lock and only while the writing worker still holds its lease;
the ``(run, number)`` unique constraint makes a second write of a match impossible even
then. A worker that dies has written nothing; its lease expires and :func:`lab_sweep_expired`
re-queues the chunk, which another worker plays from the start (the same seeds, so the
same games).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F
from django.http import Http404
from django.utils import timezone

from decks.models import Deck, DeckVersion
from decks.permissions import DeckVisibility
from engine import games as engine_games
from engine.bots import clean_platform_spec
from lab import conf
from lab.models import LabChunk, LabMatch, LabRun
from ladder.models import Pool, Rating
from web import effects
from web.apperrors import AppError

logger = logging.getLogger(__name__)

PLAY_CHUNK = "lab.play_chunk"
QUEUE = "lab"


def group_name(run_id: int) -> str:
    """The channel-layer group of a run's page."""
    return f"lab.{run_id}"


class LabAlreadyRunning(AppError):
    status = 409
    code = "lab_already_running"

    def __init__(self, run: LabRun):
        super().__init__(f"Your lab run {run.pk} ({run.deck_version}) is still {run.status}: one lab runs at a time "
                         f"per player. Cancel it or wait for it to finish.")
        self.run_id = run.pk


class LeaseLost(Exception):
    """The worker no longer holds the chunk (it expired and was handed on, or the run was cancelled)."""


# --------------------------------------------------------------------------- starting a run


def clean_pilot(value: Any, *, name: str) -> str:
    """A lab pilot (``conf.PILOTS``); ``ValidationError`` on ``name`` otherwise."""
    try:
        spec = clean_platform_spec(value)
    except ValueError as exc:
        raise ValidationError({name: [f"{name}: {exc}"]}) from None
    if spec not in conf.PILOTS:
        raise ValidationError({name: [f"{name} '{spec}' is not offered by the lab: choose one of "
                                      f"{', '.join(conf.PILOTS)}"]})
    return spec


def clean_matches(value: Any) -> int:
    """The number of matches ``n``: a whole number from 1 to ``LAB_MAX_MATCHES``."""
    if value is None or value == "":
        return conf.default_matches()
    top = conf.max_matches()
    try:
        n = int(str(value).strip()) if not isinstance(value, bool) and len(str(value)) <= 12 else None
    except ValueError:
        n = None
    if n is None or not 1 <= n <= top:
        raise ValidationError({"n": [f"n must be a whole number of matches from 1 to {top}, not '{str(value)[:20]}'"]})
    return n


def _latest(deck: Deck) -> DeckVersion | None:
    return deck.versions.order_by("-number").first()


def lab_field(*, owner, deck: Deck, kind: str, deck_ids: Sequence[Any] = (), top: Any = None) -> list[DeckVersion]:
    """The field a run of ``deck`` plays against: the latest versions of the opponents.

    ``ladder``: the ``top`` (default ``LAB_DEFAULT_TOP``) best-rated decks of the game's bot
    ladder that ``owner`` may see, the lab deck left out; ``starters``: the game's starter
    decks; ``decks``: the decks named by ``deck_ids``, each the owner's or public (a deck
    hidden from the owner is refused as if it did not exist), of the deck's game, not
    deleted. ``ValidationError`` naming ``field_kind``, ``top`` or ``field_decks``.
    """
    visibility = DeckVisibility(owner)
    cap = conf.max_field()
    if kind == LabRun.FieldKind.LADDER:
        if top in (None, ""):
            count = conf.default_top()
        else:
            try:
                count = int(str(top)) if len(str(top)) <= 6 else 0
            except ValueError:
                count = 0
            if not 1 <= count <= cap:
                raise ValidationError({"top": [f"top must be a whole number from 1 to {cap}, not '{str(top)[:20]}'"]})
        ratings = (Rating.objects.filter(game=deck.game, pool=Pool.BOTS, listed=True, deck__archived=False)
                   .exclude(deck=deck).select_related("deck").order_by("-ordinal", "id"))
        decks = [r.deck for r in ratings[:count * 4] if visibility.can_view(r.deck)][:count]
        if not decks:
            raise ValidationError({"field_kind": [
                f"the {engine_games[deck.game].title} bot ladder has no rated deck yet: choose the starter decks "
                f"or name decks"]})
    elif kind == LabRun.FieldKind.STARTERS:
        decks = list(Deck.objects.filter(game=deck.game, is_starter=True, archived=False).exclude(pk=deck.pk)
                     .order_by("pk")[:cap])
        if not decks:
            raise ValidationError({"field_kind": ["this game has no starter deck to play against"]})
    elif kind == LabRun.FieldKind.DECKS:
        ids = _deck_ids(deck_ids, cap)
        found = {d.pk: d for d in Deck.objects.filter(pk__in=ids)}
        decks = []
        for deck_id in ids:
            other = found.get(deck_id)
            if other is None or not visibility.can_view(other) or other.archived:
                raise ValidationError({"field_decks": [f"there is no deck {deck_id} you may play against"]})
            if other.game != deck.game:
                raise ValidationError({"field_decks": [
                    f"deck {deck_id} ({other.name}) is a {engine_games[other.game].title} deck: the field must be "
                    f"{engine_games[deck.game].title} decks"]})
            decks.append(other)
    else:
        raise ValidationError({"field_kind": [f"field_kind must be one of {', '.join(LabRun.FieldKind.values)}, "
                                              f"not '{str(kind)[:20]}'"]})
    versions = [_latest(d) for d in decks]
    return [v for v in versions if v is not None]


def _deck_ids(values: Sequence[Any], cap: int) -> list[int]:
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple)):
        raise ValidationError({"field_decks": ["field_decks must be a list of deck ids"]})
    if not values:
        raise ValidationError({"field_decks": ["name at least one deck to play against"]})
    if len(values) > cap:
        raise ValidationError({"field_decks": [f"a field holds at most {cap} decks, not {len(values)}"]})
    ids: list[int] = []
    for value in values:
        text = str(value).strip()
        if isinstance(value, bool) or not text.isdigit() or len(text) > 18:
            raise ValidationError({"field_decks": [f"'{text[:20]}' is not a deck id"]})
        if int(text) not in ids:
            ids.append(int(text))
    return ids


def lab_start(*, owner, deck: Deck, n: Any = None, field_kind: Any = LabRun.FieldKind.LADDER,
              field_decks: Sequence[Any] = (), top: Any = None, pilot: Any = None,
              opponent_pilot: Any = None) -> LabRun:
    """Start a lab run of ``deck``'s latest version for its owner; return it, queued.

    Refuses (changing nothing): a deck not the user's (``PermissionDenied``; ``Http404``
    when it is hidden from them), a deleted deck or a game that does not report card usage,
    bad input (``ValidationError`` naming ``n``, ``pilot``, ``opponent_pilot``,
    ``field_kind``, ``top`` or ``field_decks``), and a second open run of the same user
    (:class:`LabAlreadyRunning`, 409; checked again by the database's partial unique
    constraint when two requests race). The chunks' tasks go to the ``lab`` queue on commit.
    """
    if deck.owner_id != owner.pk:
        if not DeckVisibility(owner).can_view(deck):
            raise Http404(f"there is no deck {deck.pk}")
        raise PermissionDenied(f"deck {deck.pk} ({deck.name}) is not yours: a lab runs on your own decks")
    if deck.archived:
        raise AppError(f"deck {deck.pk} ({deck.name}) was deleted: it cannot run a lab", code="deck_archived",
                       status=400, fields={"deck": ["this deck was deleted"]})
    game = engine_games[deck.game] if deck.game in engine_games else None
    if game is None or not game.reports_card_usage:
        raise AppError(f"the deck lab does not run {deck.game} decks: the game does not report the cards drawn and "
                       f"played", code="game_not_in_lab", status=400, fields={"deck": ["game not offered"]})
    wanted = clean_matches(n)
    pilot = clean_pilot(pilot if pilot not in (None, "") else "random", name="pilot")
    opponent_pilot = pilot if opponent_pilot in (None, "") else clean_pilot(opponent_pilot, name="opponent_pilot")
    version = _latest(deck)
    if version is None:
        raise AppError(f"deck {deck.pk} has no version to play", code="deck_empty", status=400)
    field_versions = lab_field(owner=owner, deck=deck, kind=field_kind, deck_ids=field_decks, top=top)
    size = conf.chunk_matches(pilot, opponent_pilot)
    size = max(size, -(-wanted // conf.MAX_CHUNKS))
    now = timezone.now()
    try:
        with transaction.atomic():
            _refuse_open_run(owner)
            run = LabRun.objects.create(
                owner=owner, game=deck.game, deck=deck, deck_version=version, field_kind=field_kind,
                field_versions=[v.pk for v in field_versions], pilot=pilot, opponent_pilot=opponent_pilot,
                matches_wanted=wanted, seed=secrets.randbits(53))
            chunks = LabChunk.objects.bulk_create([
                LabChunk(run=run, first=first, count=min(size, wanted - first + 1),
                         lease_expires=now + timedelta(seconds=conf.resend_seconds()))
                for first in range(1, wanted + 1, size)])
            ids = [c.pk for c in chunks] if all(c.pk for c in chunks) else list(
                run.chunks.order_by("first").values_list("pk", flat=True))
            for chunk_id in ids:
                effects.send_task_on_commit(PLAY_CHUNK, args=[chunk_id], queue=QUEUE)
    except IntegrityError:
        open_run = LabRun.objects.filter(owner=owner, status__in=LabRun.OPEN).first()
        if open_run is None:
            raise
        raise LabAlreadyRunning(open_run) from None
    return run


def _refuse_open_run(owner) -> None:
    open_run = LabRun.objects.filter(owner=owner, status__in=LabRun.OPEN).first()
    if open_run is not None:
        raise LabAlreadyRunning(open_run)


def lab_cancel(*, run_id: int, user) -> LabRun:
    """Cancel an open run (its owner or staff): unplayed chunks are dropped, and a worker
    playing one stops at its next match without writing. A finished run is left as it is
    (409). Locks the run's row."""
    with transaction.atomic():
        run = LabRun.objects.select_for_update().get(pk=run_id)
        if run.owner_id != user.pk and not user.is_staff:
            raise PermissionDenied("only the owner of a lab run may cancel it")
        if not run.is_open:
            raise AppError(f"lab run {run.pk} is already {run.status}", code="lab_not_running", status=409)
        run.status = LabRun.Status.CANCELLED
        run.finished = timezone.now()
        run.save(update_fields=["status", "finished"])
        run.chunks.filter(status__in=(LabChunk.Status.QUEUED, LabChunk.Status.RUNNING)).update(
            status=LabChunk.Status.CANCELLED, lease_owner="", lease_expires=None)
        _broadcast_on_commit(run)
    return run


# --------------------------------------------------------------------------- the chunk lifecycle


def lab_claim_chunk(*, chunk_id: int, worker: str) -> LabChunk | None:
    """Take chunk ``chunk_id`` for ``worker`` under a fresh lease; None if it is not free
    (done, cancelled, failed, or held under a lease that has not expired).

    Locks the chunk's row, then its run's. A chunk out of attempts fails, and its run
    with it. The run becomes running at its first claim."""
    now = timezone.now()
    with transaction.atomic():
        chunk = LabChunk.objects.select_for_update().select_related("run").filter(pk=chunk_id).first()
        if chunk is None or chunk.status not in (LabChunk.Status.QUEUED, LabChunk.Status.RUNNING):
            return None
        if chunk.status == LabChunk.Status.RUNNING and chunk.lease_expires and chunk.lease_expires > now:
            return None
        run = LabRun.objects.select_for_update().get(pk=chunk.run_id)
        if not run.is_open:
            return None
        if chunk.attempts >= conf.max_attempts():
            _fail(run, chunk, now, f"matches {chunk.first}-{chunk.first + chunk.count - 1} were started "
                                   f"{chunk.attempts} times without finishing")
            return None
        chunk.status = LabChunk.Status.RUNNING
        chunk.attempts += 1
        chunk.lease_owner = worker
        chunk.lease_expires = now + timedelta(seconds=conf.lease_seconds())
        chunk.save(update_fields=["status", "attempts", "lease_owner", "lease_expires"])
        if run.status == LabRun.Status.QUEUED:
            run.status = LabRun.Status.RUNNING
            run.started = now
            run.save(update_fields=["status", "started"])
            _broadcast_on_commit(run)
        chunk.run = run
    return chunk


def lab_renew_chunk(*, chunk_id: int, worker: str) -> None:
    """Extend ``worker``'s lease on the chunk with one conditional UPDATE; :class:`LeaseLost`
    when it no longer holds it (handed on, or the run was cancelled)."""
    expires = timezone.now() + timedelta(seconds=conf.lease_seconds())
    if not LabChunk.objects.filter(pk=chunk_id, status=LabChunk.Status.RUNNING, lease_owner=worker).update(
            lease_expires=expires):
        raise LeaseLost(f"lab chunk {chunk_id}: {worker} no longer holds it")


@dataclass
class PlayedLabMatch:
    """One match a worker played, ready to be written."""

    number: int
    opponent_version_id: int
    deck_seat: int
    outcome: str
    actions: int
    ending: str
    usage: dict[str, Any]
    replay: bytes
    #: Seconds the engine took (playing the match and reading its usage): not stored, the
    #: worker logs the chunk's sum beside its whole time (bench/lab.py reads them).
    engine_seconds: float = 0.0


def lab_record_chunk(*, chunk_id: int, worker: str, played: Sequence[PlayedLabMatch]) -> LabRun:
    """Write the chunk's matches in bulk, mark the chunk done and move the run on; the run
    is done when its last chunk is. :class:`LeaseLost` (writing nothing) when ``worker``
    no longer holds the chunk.

    Locks the chunk's row, then the run's; the progress is counted from the rows, so a
    count can never drift from what was written. The run's page is told on commit."""
    with transaction.atomic():
        chunk = LabChunk.objects.select_for_update().get(pk=chunk_id)
        if chunk.status != LabChunk.Status.RUNNING or chunk.lease_owner != worker:
            raise LeaseLost(f"lab chunk {chunk_id}: {worker} no longer holds it (now {chunk.status})")
        if sorted(p.number for p in played) != list(chunk.numbers):
            raise ValueError(f"lab chunk {chunk_id} holds matches {chunk.first}-{chunk.first + chunk.count - 1}, "
                             f"not {[p.number for p in played]}")
        run = LabRun.objects.select_for_update().get(pk=chunk.run_id)
        LabMatch.objects.bulk_create([
            LabMatch(run_id=run.pk, number=p.number, deck_version_id=run.deck_version_id,
                     opponent_version_id=p.opponent_version_id, deck_seat=p.deck_seat, pilot=run.pilot,
                     opponent_pilot=run.opponent_pilot, outcome=p.outcome, actions=p.actions, ending=p.ending[:200],
                     usage=p.usage, replay=p.replay)
            for p in played])
        chunk.status = LabChunk.Status.DONE
        chunk.lease_owner = ""
        chunk.lease_expires = None
        chunk.save(update_fields=["status", "lease_owner", "lease_expires"])
        LabRun.objects.filter(pk=run.pk).update(progress=F("progress") + len(played))
        run.refresh_from_db(fields=["progress"])
        if not run.chunks.exclude(status=LabChunk.Status.DONE).exists():
            run.status = LabRun.Status.DONE
            run.finished = timezone.now()
            run.save(update_fields=["status", "finished"])
        _broadcast_on_commit(run)
    return run


def lab_fail_chunk(*, chunk_id: int, worker: str, error: str) -> None:
    """An error a retry would meet again (an engine or data problem): fail the chunk and
    its run, with the error for the owner. Nothing if ``worker`` no longer holds it."""
    with transaction.atomic():
        chunk = LabChunk.objects.select_for_update().filter(pk=chunk_id).first()
        if chunk is None or chunk.status != LabChunk.Status.RUNNING or chunk.lease_owner != worker:
            return
        run = LabRun.objects.select_for_update().get(pk=chunk.run_id)
        _fail(run, chunk, timezone.now(), error)


def _fail(run: LabRun, chunk: LabChunk, now: datetime, error: str) -> None:
    chunk.status = LabChunk.Status.FAILED
    chunk.lease_owner = ""
    chunk.lease_expires = None
    chunk.save(update_fields=["status", "lease_owner", "lease_expires"])
    if run.is_open:
        run.status = LabRun.Status.FAILED
        run.error = error[:2000]
        run.finished = now
        run.save(update_fields=["status", "error", "finished"])
        run.chunks.filter(status=LabChunk.Status.QUEUED).update(status=LabChunk.Status.CANCELLED, lease_expires=None)
        _broadcast_on_commit(run)


@dataclass
class SweepReport:
    requeued: list[int] = field(default_factory=list)
    resent: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, list[int]]:
        return {"requeued": self.requeued, "resent": self.resent, "failed": self.failed}


def lab_sweep_expired(*, now: datetime | None = None) -> SweepReport:
    """Hand on the chunks whose worker's lease expired (queued again, task sent on commit),
    fail those out of attempts (and their runs), and send the task again for chunks left
    queued ``LAB_RESEND_SECONDS`` (a message lost in transit). Each chunk in its own
    transaction under its row lock, re-checked once locked."""
    now = now or timezone.now()
    report = SweepReport()
    candidates = list(LabChunk.objects.filter(
        status__in=(LabChunk.Status.RUNNING, LabChunk.Status.QUEUED), lease_expires__lt=now,
    ).order_by("pk").values_list("pk", flat=True)[:1000])
    for chunk_id in candidates:
        with transaction.atomic():
            chunk = LabChunk.objects.select_for_update().get(pk=chunk_id)
            if chunk.lease_expires is None or chunk.lease_expires >= now:
                continue
            if chunk.status == LabChunk.Status.RUNNING and chunk.attempts >= conf.max_attempts():
                run = LabRun.objects.select_for_update().get(pk=chunk.run_id)
                _fail(run, chunk, now, f"matches {chunk.first}-{chunk.first + chunk.count - 1}: every worker that "
                                       f"played them stopped ({chunk.attempts} attempts)")
                report.failed.append(chunk_id)
                continue
            (report.requeued if chunk.status == LabChunk.Status.RUNNING else report.resent).append(chunk_id)
            if chunk.status == LabChunk.Status.RUNNING:
                logger.warning("lab chunk %s: lease of %s expired; re-queued", chunk_id, chunk.lease_owner)
            chunk.status = LabChunk.Status.QUEUED
            chunk.lease_owner = ""
            chunk.lease_expires = now + timedelta(seconds=conf.resend_seconds())
            chunk.save(update_fields=["status", "lease_owner", "lease_expires"])
            effects.send_task_on_commit(PLAY_CHUNK, args=[chunk_id], queue=QUEUE)
    return report


def _broadcast_on_commit(run: LabRun) -> None:
    event = {"type": "lab.progress", "run": run.pk, "status": str(run.status), "progress": run.progress,
             "wanted": run.matches_wanted}
    effects.broadcast_on_commit(group_name(run.pk), event)
