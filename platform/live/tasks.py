"""Celery tasks of the live app. They take ids, re-read the rows and are safe to run twice.

- ``live.bot_act(match_id, seat, index)`` (queue ``live``): a bot seat chooses and plays
  its move on a worker, never in a web process; the ``live`` queue has a worker of its own,
  so the move never waits behind a bot match, and the decision has a hard limit
  (``LIVE_BOT_DECISION_SECONDS``), so a slow bot holds a live thread no longer than that;
- ``live.check_clock(match_id)`` (queue ``live``): scheduled for a match's next clock
  deadline; applies a time-out even when nobody is connected (a list of ids: the checks of
  a batch due together);
- ``live.tick`` (beat, queue ``periodic``): every clock due, matchmaking queues paired again
  (their rating windows widen with waiting), stale challenges expired, and a bot move whose
  message was lost sent again.
"""

from __future__ import annotations

from celery import shared_task

from live import challenges, endings, ladder, matchmaking, moves


@shared_task(name="live.bot_act")
def bot_act(match_id: int, seat: int, index: int) -> str:
    return moves.live_bot_move(match_id=match_id, seat=seat, index=index)


@shared_task(name="live.check_clock")
def check_clock(match_id: int | list[int]) -> list[int] | dict[str, list[int]]:
    """The clock of one match, or of each of a list of them (checks due together are sent
    as one message: ``web.effects.send_task(merge=...)``)."""
    if isinstance(match_id, list):
        return {str(one): endings.live_enforce_clock(match_id=int(one)) for one in match_id}
    return endings.live_enforce_clock(match_id=match_id)


@shared_task(name="live.tick")
def tick() -> dict:
    return {
        "timed_out": endings.live_enforce_clocks(),
        "paired": matchmaking.live_pair_queues(),
        "expired_challenges": challenges.live_expire_challenges(),
        "bot_moves_resent": moves.live_resend_bot_moves(),
        "ladder_bots": ladder.live_ladder_bots(),
    }
