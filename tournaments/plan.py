"""The bridge between stored rows and the pure formats (``tournaments.formats``).

Reads entries, pairings and tiebreaks of one tournament, turns them into the formats'
``Player`` and ``Result`` values, and says what the event does next (:func:`next_step`):
pair a round, break a tie with Match the Twos, wait, or finish. Writes nothing: the
services write what it decides, under the tournament's row lock.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tournaments import formats
from tournaments.models import Entry, Pairing, Round, Tiebreak, Tournament

GROUP_STAGES = (Round.Stage.SWISS, Round.Stage.PODS, Round.Stage.ROUND_ROBIN)
BRACKET_STAGES = (Round.Stage.ELIMINATION, Round.Stage.TOP_CUT)


@dataclass(frozen=True)
class PairSpec:
    """One table to write: ``entries`` in match order; ``walkover`` the entry that goes
    through because its opponent dropped; ``sit_out`` a round-robin rest (no result)."""

    entries: tuple[int, ...]
    key: str = ""
    walkover: int | None = None
    sit_out: bool = False


@dataclass
class Step:
    """What the event does next: ``kind`` is ``pair`` (``stage``, ``pairings``),
    ``tiebreak`` (``key``, ``purpose``, ``entries``), ``finish`` (``winner``) or ``wait``
    (``purpose`` says why)."""

    kind: str
    stage: str = ""
    pairings: list[PairSpec] = field(default_factory=list)
    key: str = ""
    purpose: str = ""
    entries: list[int] = field(default_factory=list)
    winner: int | None = None


# --------------------------------------------------------------------------- results


def bye_result(tournament: Tournament) -> dict[str, Any]:
    """A bye: a match win, 2-0 in games."""
    return {"places": [1], "game_wins": [2], "games": 2, "conquest": None, "bye": True}


def sit_out_result() -> dict[str, Any]:
    """A round-robin rest: recorded as played, scored as nothing."""
    return {"places": [1], "game_wins": [0], "games": 0, "conquest": None, "sit_out": True}


def walkover_result(entries: Sequence[int], winner: int) -> dict[str, Any]:
    """The opponent dropped: ``winner`` goes through, no games played."""
    return {"places": [1 if e == winner else 2 for e in entries], "game_wins": [0] * len(entries), "games": 0,
            "conquest": None, "walkover": True}


def result_from_match(match, seat_entries: Sequence[int], entries: Sequence[int]) -> dict[str, Any]:
    """A finished match's result by pairing entry (``entries`` order): places (1, 1, 3
    style: equal places share), games won, games played and, for Conquest, the Conquest
    scored over the match. ``seat_entries[i]`` is the entry that was match entry ``i``."""
    result = match.result or {}
    places_by_seat = list(result.get("places") or [])
    wins_by_seat = list(result.get("wins") or [0] * len(seat_entries))
    conquest_by_seat: list[int] | None = None
    if match.game == "conquest":
        conquest_by_seat = [0] * len(seat_entries)
        for game in match.games.all():
            scores = (game.outcome.get("detail") or {}).get("conquest") or game.outcome.get("scores") or []
            for engine_seat, entry in enumerate(game.seat_order):
                if engine_seat < len(scores) and scores[engine_seat] is not None:
                    conquest_by_seat[entry] += int(scores[engine_seat])
    index = {entry_id: i for i, entry_id in enumerate(seat_entries)}
    return {
        "places": [int(places_by_seat[index[e]]) for e in entries],
        "game_wins": [int(wins_by_seat[index[e]]) for e in entries],
        "games": int(result.get("games") or 0),
        "conquest": [conquest_by_seat[index[e]] for e in entries] if conquest_by_seat is not None else None,
    }


def to_result(pairing: Pairing, round_number: int) -> formats.Result | None:
    """The formats' ``Result`` of a decided table; None for a rest or an undecided table."""
    data = pairing.result
    if pairing.status != Pairing.Status.DONE or not data or data.get("sit_out"):
        return None
    players = tuple(pairing.entries)
    if len(players) == 1:
        return formats.bye_result(round_number, players[0], match_key=pairing.key)
    conquest = data.get("conquest")
    return formats.Result(round=round_number, players=players, places=tuple(data["places"]),
                          game_wins=tuple(data["game_wins"]), games=int(data["games"]),
                          conquest=tuple(conquest) if conquest is not None else None, match_key=pairing.key)


def _done_pairings(tournament: Tournament, stages: Iterable[str]) -> list[tuple[Pairing, int]]:
    rows = (Pairing.objects.filter(round__tournament=tournament, round__stage__in=list(stages))
            .select_related("round").order_by("round__number", "table"))
    return [(p, p.round.number) for p in rows]


def group_results(tournament: Tournament) -> list[formats.Result]:
    out = []
    for pairing, number in _done_pairings(tournament, GROUP_STAGES):
        result = to_result(pairing, number)
        if result is not None:
            out.append(result)
    return out


def bracket_results(tournament: Tournament) -> dict[str, formats.Result]:
    out = {}
    for pairing, number in _done_pairings(tournament, BRACKET_STAGES):
        result = to_result(pairing, number)
        if result is not None and pairing.key:
            out[pairing.key] = result
    return out


# --------------------------------------------------------------------------- players and tables


def seeded_entries(tournament: Tournament) -> list[Entry]:
    return list(tournament.entries.filter(waitlisted=False).exclude(seed=None).order_by("seed"))


def players(tournament: Tournament) -> list[formats.Player]:
    return [formats.Player(id=e.pk, seed=e.seed, dropped=e.dropped) for e in seeded_entries(tournament)]


def decided_orders(tournament: Tournament) -> list[list[int]]:
    """Match the Twos orders of the tiebreaks already run (best first)."""
    return [row.order for row in tournament.tiebreaks.filter(status=Tiebreak.Status.DONE)]


def group_table(tournament: Tournament) -> list[formats.Standing]:
    """The standings of the Swiss, pod or round-robin part, with every tiebreaker."""
    return formats.standings(players(tournament), group_results(tournament), game=tournament.game,
                             decided=decided_orders(tournament))


def bracket_of(tournament: Tournament) -> formats.Bracket | None:
    """The elimination bracket: the whole field by seed, or the top cut once it is known."""
    if tournament.format == Tournament.Format.SWISS_CUT:
        if not tournament.cut_entries:
            return None
        return formats.Bracket.single(list(tournament.cut_entries), third_place=tournament.third_place)
    ids = [e.pk for e in seeded_entries(tournament)]
    if len(ids) < 2:
        return None  # not started yet: nobody is seeded
    if tournament.format == Tournament.Format.SINGLE_ELIM:
        return formats.Bracket.single(ids, third_place=tournament.third_place)
    if tournament.format == Tournament.Format.DOUBLE_ELIM:
        return formats.Bracket.double(ids)
    return None


def pod_rounds(n: int, pod_size: int) -> int:
    """Recommended pod rounds: enough for one player to stay unbeaten alone in a field of
    ``n`` with pods of ``pod_size`` (ceil(log_pod(n))), plus one; at least 2."""
    if n <= pod_size:
        return 2
    return max(2, math.ceil(math.log(n) / math.log(pod_size)) + 1)


def group_rounds(tournament: Tournament, entries: int) -> int:
    """How many Swiss, pod or round-robin rounds the event plays (fixed at the start)."""
    fmt = tournament.format
    if fmt in (Tournament.Format.SWISS, Tournament.Format.SWISS_CUT):
        return tournament.rounds or formats.swiss_recommended_rounds(entries)
    if fmt == Tournament.Format.CONQUEST_PODS:
        return tournament.rounds or pod_rounds(entries, tournament.players_per_game)
    if fmt == Tournament.Format.ROUND_ROBIN:
        return entries - 1 if entries % 2 == 0 else entries
    return 0


# --------------------------------------------------------------------------- what next


def _specs(pairings: Sequence[formats.Pairing], dropped: set[int], *, sit_out: bool = False) -> list[PairSpec]:
    out = []
    for p in pairings:
        entries = tuple(p.players)
        if len(entries) == 1:
            out.append(PairSpec(entries=entries, key=p.key, sit_out=sit_out))
            continue
        live = [e for e in entries if e not in dropped]
        if len(live) == len(entries):
            out.append(PairSpec(entries=entries, key=p.key))
        else:
            # A dropped entry is never paired again: its opponent goes through.
            out.append(PairSpec(entries=entries, key=p.key, walkover=live[0] if live else entries[0]))
    return out


def next_step(tournament: Tournament) -> Step:
    """What the (locked, running) event does now that its current round is decided."""
    fmt = tournament.format
    all_players = players(tournament)
    dropped = {p.id for p in all_players if p.dropped}
    group_played = tournament.round_set.filter(stage__in=GROUP_STAGES).count()
    number = tournament.current_round + 1
    if fmt in (Tournament.Format.SWISS, Tournament.Format.SWISS_CUT, Tournament.Format.CONQUEST_PODS,
               Tournament.Format.ROUND_ROBIN):
        if group_played < tournament.total_rounds:
            active = [p for p in all_players if not p.dropped]
            if len(active) >= 2:
                return _group_round(tournament, all_players, dropped, group_played + 1)
            if fmt != Tournament.Format.SWISS_CUT or not active:
                return _finish_group(tournament)
        if fmt != Tournament.Format.SWISS_CUT:
            return _finish_group(tournament)
        if not tournament.cut_entries:
            table = group_table(tournament)
            live = [st for st in table if not st.dropped]
            cut = min(tournament.top_cut, len(live))
            if cut < 2:
                return _finish_group(tournament)
            step = _tiebreak_step(tournament, table, cut, "cut", f"the top-{tournament.top_cut} cut line")
            if step is not None:
                return step
            tournament.cut_entries = [st.player for st in live[:cut]]
            tournament.save(update_fields=["cut_entries"])
        return _bracket_step(tournament, dropped, Round.Stage.TOP_CUT, number)
    return _bracket_step(tournament, dropped, Round.Stage.ELIMINATION, number)


def _group_round(tournament: Tournament, all_players: list[formats.Player], dropped: set[int],
                 group_number: int) -> Step:
    fmt = tournament.format
    results = group_results(tournament)
    if fmt == Tournament.Format.ROUND_ROBIN:
        # The schedule is fixed at the start: computed over every seeded entry as if none
        # had dropped, so dropping cannot reshuffle later rounds.
        schedule = formats.round_robin_schedule([formats.Player(id=p.id, seed=p.seed) for p in all_players])
        pairings = schedule[group_number - 1] if group_number <= len(schedule) else []
        specs = []
        for spec in _specs(pairings, dropped, sit_out=True):
            if spec.walkover is not None and all(e in dropped for e in spec.entries):
                continue
            specs.append(spec)
        return Step(kind="pair", stage=Round.Stage.ROUND_ROBIN, pairings=specs)
    if fmt == Tournament.Format.CONQUEST_PODS:
        pairings = formats.pod_pairings(all_players, results, group_number, seed=tournament.seed,
                                        pod_size=tournament.players_per_game)
        return Step(kind="pair", stage=Round.Stage.PODS, pairings=_specs(pairings, dropped))
    pairings = formats.swiss_pairings(all_players, results, group_number, seed=tournament.seed)
    return Step(kind="pair", stage=Round.Stage.SWISS, pairings=_specs(pairings, dropped))


def _tiebreak_step(tournament: Tournament, table: Sequence[formats.Standing], line: int, key: str,
                   purpose: str) -> Step | None:
    """A Match the Twos step for a tie across ``line``, unless one was already run for
    ``key`` (a tie Match the Twos left shared stays in seed order)."""
    if tournament.tiebreaks.filter(key=key).exists():
        return None
    groups = formats.unresolved_ties([st for st in table if not st.dropped], [line])
    if not groups:
        return None
    return Step(kind="tiebreak", key=key, purpose=purpose, entries=list(groups[0]))


def _finish_group(tournament: Tournament) -> Step:
    table = group_table(tournament)
    live = [st for st in table if not st.dropped] or list(table)
    if not live:
        return Step(kind="finish", winner=None)
    step = _tiebreak_step(tournament, table, 1, "first", "first place")
    if step is not None:
        return step
    return Step(kind="finish", winner=live[0].player)


def _bracket_step(tournament: Tournament, dropped: set[int], stage: str, number: int) -> Step:
    bracket = bracket_of(tournament)
    if bracket is None:
        return Step(kind="finish", winner=None)
    results = bracket_results(tournament)
    if bracket.done(results):
        return Step(kind="finish", winner=bracket.champion(results))
    played = set(Pairing.objects.filter(round__tournament=tournament, round__stage__in=BRACKET_STAGES)
                 .exclude(key="").values_list("key", flat=True))
    ready = [p for p in bracket.ready(results) if p.key not in played]
    if not ready:
        return Step(kind="wait", purpose="no bracket match is ready")
    return Step(kind="pair", stage=stage, pairings=_specs(ready, dropped))
