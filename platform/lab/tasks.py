"""Celery tasks of the deck lab: ``lab.play_chunk`` on the ``lab`` queue (the lowest
priority: a lab never delays a live bot, a tournament or the ladder) and ``lab.sweep`` on
``periodic``. Thin: they claim, call the play loop and the services, and are safe to run
twice (a chunk done or held by another worker is skipped)."""

from __future__ import annotations

import logging
import os
import time
import traceback

from celery import shared_task

from lab.play import play_chunk
from lab.services import LeaseLost, lab_claim_chunk, lab_fail_chunk, lab_record_chunk, lab_sweep_expired

logger = logging.getLogger(__name__)


@shared_task(name="lab.play_chunk", bind=True)
def run_chunk(self, chunk_id: int) -> str:
    """Claim chunk ``chunk_id``, play its matches and write them together."""
    began = time.perf_counter()
    worker = f"{getattr(self.request, 'hostname', None) or 'local'}/{os.getpid()}/{self.request.id or 'eager'}"
    chunk = lab_claim_chunk(chunk_id=chunk_id, worker=worker)
    if chunk is None:
        return "skipped"
    try:
        played = play_chunk(chunk, worker=worker)
        lab_record_chunk(chunk_id=chunk_id, worker=worker, played=played)
        # What the platform adds to the engine, per chunk (bench/lab.py sums these lines).
        logger.info("lab chunk %s: %d matches in %.4f s, %.4f s of them in the engine", chunk_id, len(played),
                    time.perf_counter() - began, sum(p.engine_seconds for p in played))
    except LeaseLost as exc:
        logger.warning("lab chunk %s: %s; stopping without writing", chunk_id, exc)
        return "lease lost"
    except Exception as exc:
        logger.exception("lab chunk %s failed", chunk_id)
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        lab_fail_chunk(chunk_id=chunk_id, worker=worker, error=f"playing the lab raised {detail}")
        return "failed"
    return f"played {chunk.count}"


@shared_task(name="lab.sweep")
def sweep() -> dict[str, list[int]]:
    """Hand on chunks whose worker died; resend lost messages; fail chunks out of attempts."""
    report = lab_sweep_expired()
    if report.requeued or report.failed or report.resent:
        logger.warning("lab sweeper: %s", report.to_json())
    return report.to_json()
