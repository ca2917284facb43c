"""The bridge between stored rows and the pure formats (``tournaments.formats``).

Reads entries, pairings and tiebreaks of one tournament, turns them into the formats'
``Player`` and ``Result`` values (:class:`TournamentState`), and asks the event's format
(``formats.get_format``) what the event does next (:func:`next_step`): pair a round,
break a tie with Match the Twos, wait, or finish. It never branches on the format. Writes
only the top cut a step fixes; the services write the rest, under the tournament's row
lock.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import Any

from engine import games as engine_games
from tournaments import formats
from tournaments.models import Entry, Pairing, Tiebreak, Tournament

#: Round stages whose results feed the standings, and those whose results are looked up
#: by bracket key (a drawn match there is replayed).
GROUP_STAGES = formats.GROUP_STAGES
BRACKET_STAGES = formats.KNOCKOUT_STAGES
#: What a format answers (kept here for the services, which write it).
Step = formats.Step
PairSpec = formats.PairSpec


# --------------------------------------------------------------------------- results


def bye_result(tournament: Tournament) -> dict[str, Any]:
    """A bye: a match win, 2-0 in games."""
    return {"places": [1], "game_wins": [2], "games": 2, "score": None, "bye": True}


def sit_out_result() -> dict[str, Any]:
    """A round-robin rest: recorded as played, scored as nothing."""
    return {"places": [1], "game_wins": [0], "games": 0, "score": None, "sit_out": True}


def walkover_result(entries: Sequence[int], winner: int) -> dict[str, Any]:
    """The opponent dropped: ``winner`` goes through, no games played."""
    return {"places": [1 if e == winner else 2 for e in entries], "game_wins": [0] * len(entries), "games": 0,
            "score": None, "walkover": True}


def result_from_match(match, seat_entries: Sequence[int], entries: Sequence[int]) -> dict[str, Any]:
    """A finished match's result by pairing entry (``entries`` order): places (1, 1, 3
    style: equal places share), games won, games played and, for a game with a standings
    score (``Game.standings_score_label``), that score over the match (under the key
    ``score``; None for a game without one). ``seat_entries[i]`` is the entry that was match entry ``i``."""
    result = match.result or {}
    places_by_seat = list(result.get("places") or [])
    wins_by_seat = list(result.get("wins") or [0] * len(seat_entries))
    score_by_seat: list[int] | None = None
    engine_game = engine_games[match.game]
    if engine_game.standings_score_label:
        score_by_seat = [0] * len(seat_entries)
        for game in match.games.all():
            scores = engine_game.standings_scores(game.outcome) or []
            for engine_seat, entry in enumerate(game.seat_order):
                if engine_seat < len(scores) and scores[engine_seat] is not None:
                    score_by_seat[entry] += int(scores[engine_seat])
    index = {entry_id: i for i, entry_id in enumerate(seat_entries)}
    return {
        "places": [int(places_by_seat[index[e]]) for e in entries],
        "game_wins": [int(wins_by_seat[index[e]]) for e in entries],
        "games": int(result.get("games") or 0),
        "score": [score_by_seat[index[e]] for e in entries] if score_by_seat is not None else None,
    }


def to_result(pairing: Pairing, round_number: int) -> formats.Result | None:
    """The formats' ``Result`` of a decided table; None for a rest or an undecided table."""
    data = pairing.result
    if pairing.status != Pairing.Status.DONE or not data or data.get("sit_out"):
        return None
    players = tuple(pairing.entries)
    if len(players) == 1:
        return formats.bye_result(round_number, players[0], match_key=pairing.key)
    score = data.get("score")
    return formats.Result(round=round_number, players=players, places=tuple(data["places"]),
                          game_wins=tuple(data["game_wins"]), games=int(data["games"]),
                          score=tuple(score) if score is not None else None, match_key=pairing.key)


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


def format_of(tournament: Tournament) -> formats.Format:
    """The event's format (``KeyError`` for a key no format is registered under)."""
    return formats.get_format(tournament.format)


def settings_of(tournament: Tournament) -> dict[str, Any]:
    """The event's format settings (``formats.SETTING_NAMES``), as the formats read them."""
    return {name: getattr(tournament, name) for name in formats.SETTING_NAMES}


class TournamentState:
    """A stored event as its format sees it (``formats.EventState``): each part is read
    from the database when the format first asks for it."""

    def __init__(self, tournament: Tournament) -> None:
        self.tournament = tournament
        self.settings = settings_of(tournament)
        self.seed = tournament.seed
        self.total_rounds = tournament.total_rounds
        self.cut_entries = tuple(tournament.cut_entries or ())

    @cached_property
    def players(self) -> list[formats.Player]:
        return players(self.tournament)

    @cached_property
    def group_rounds_played(self) -> int:
        return self.tournament.round_set.filter(stage__in=GROUP_STAGES).count()

    def group_results(self) -> list[formats.Result]:
        return group_results(self.tournament)

    def standings(self) -> list[formats.Standing]:
        return group_table(self.tournament)

    def knockout_results(self) -> dict[str, formats.Result]:
        return bracket_results(self.tournament)

    def paired_keys(self) -> set[str]:
        return set(Pairing.objects.filter(round__tournament=self.tournament, round__stage__in=BRACKET_STAGES)
                   .exclude(key="").values_list("key", flat=True))

    def tiebreak_started(self, key: str) -> bool:
        return self.tournament.tiebreaks.filter(key=key).exists()


def bracket_of(tournament: Tournament) -> formats.Bracket | None:
    """The elimination bracket: the whole field by seed, or the top cut once it is known;
    None when the format has none (or not yet)."""
    return format_of(tournament).bracket(TournamentState(tournament))


def placings(tournament: Tournament) -> dict[int, int]:
    """Final places of the knockout part, once it is decided ({} before, or without one)."""
    return format_of(tournament).placings(TournamentState(tournament))


def group_rounds(tournament: Tournament, entries: int) -> int:
    """How many group rounds the event plays (fixed at the start; 0 for a bracket)."""
    return format_of(tournament).rounds_for(entries, settings_of(tournament))


# --------------------------------------------------------------------------- what next


def next_step(tournament: Tournament) -> Step:
    """What the (locked, running) event does now that its current round is decided: its
    format decides. A top cut the step fixes is stored on the tournament here."""
    step = format_of(tournament).next_pairings(TournamentState(tournament))
    if step.cut is not None:
        tournament.cut_entries = list(step.cut)
        tournament.save(update_fields=["cut_entries"])
    return step
