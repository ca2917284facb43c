"""Single and double elimination brackets, built from a seeded list of entry ids.

A Bracket is a fixed, pure description of every match slot; where the players of a match
come from ("seed 3", "W1-2 winner", "W2-1 loser") never changes. Everything that depends
on results takes ``results_by_key`` (a mapping from match key to the finished
:class:`Result` whose ``match_key`` is that key), so the caller stores only results and
the seed order, and rebuilds the bracket at will.

Match keys: ``W<round>-<n>`` winners bracket (the only bracket of single elimination),
``L<round>-<n>`` losers bracket, ``GF`` grand final, ``GF-reset`` its bracket reset,
``3rd`` the third-place match. Rounds and match numbers count from 1.

The formats played on a bracket are here too: single and double elimination, and the
Swiss with a top cut.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .registry import EventState, Format, Step, bracket_step, finish_group, tiebreak_step
from .swiss import Swiss
from .types import Pairing, Result, Standing


class _Empty:
    """A slot that no player will ever fill (a bye)."""

    def __repr__(self) -> str:
        return "EMPTY"


EMPTY = _Empty()
Slot = int | _Empty | None  # a player, nobody ever, or not known yet
Row = tuple[Slot, Slot, Slot, Slot]  # first player, second player, winner, loser


@dataclass(frozen=True)
class _Source:
    kind: str  # "seed", "winner", "loser"
    ref: int | str  # seed number (1-based) or match key

    def label(self, field: int) -> str:
        if self.kind == "seed":
            return f"seed {self.ref}" if int(self.ref) <= field else "bye"
        return f"{self.ref} {self.kind}"


@dataclass
class _Match:
    key: str
    bracket: str  # "W", "L", "GF", "GF-reset", "3rd"
    round: int
    sources: tuple[_Source, _Source]
    next: str | None = None
    loser_next: str | None = None


def seed_positions(size: int) -> list[int]:
    """Seeds in bracket order for a power-of-two ``size``: 1, 8, 4, 5, 2, 7, 3, 6 for 8,
    so that seeds 1 and 2 can meet only in the final, seeds 1 to 4 only from the semi-finals."""
    order = [1]
    while len(order) < size:
        m = 2 * len(order) + 1
        order = [x for s in order for x in (s, m - s)]
    return order


def _drop_order(r: int, k: int, count: int) -> int:
    """Which loser of winners round ``r`` (0-based, of ``count``) drops into losers-bracket
    match ``k`` of that round's drop round.

    The order cycles, from winners round 2: reversed, halves swapped, halves swapped and
    reversed, as is; a drop of two keeps its order. Over random results this gives fewer
    losers-bracket rematches than reversing every other round (bench/pairing.py measures
    both: about the same at 16 players, a third fewer at 32, half at 64).
    """
    if count <= 2:
        return k
    half = (k + count // 2) % count
    step = (r - 2) % 4
    return [count - 1 - k, half, count - 1 - half, k][step]


class Bracket:
    """An elimination bracket. Build with :meth:`single` or :meth:`double`.

    Attributes: ``kind`` ("single" or "double"), ``players`` (in seed order),
    ``third_place``, ``size`` (the field padded to a power of two), ``rounds`` (winners
    bracket rounds)."""

    def __init__(self, kind: str, players: Sequence[int], third_place: bool) -> None:
        players = tuple(players)
        if not players:
            raise ValueError("a bracket needs at least one player")
        if len(set(players)) != len(players):
            raise ValueError("a player appears twice in the bracket")
        self.kind = kind
        self.players = players
        self.third_place = third_place
        size = 2
        while size < len(players):
            size *= 2
        self.size = size
        self.rounds = size.bit_length() - 1
        self._matches: dict[str, _Match] = {}
        self._build()

    @classmethod
    def single(cls, players_in_seed_order: Sequence[int], *, third_place: bool = False) -> Bracket:
        """Single elimination: the field padded to a power of two with byes for the top
        seeds; standard seeding so seeds 1 and 2 can meet only in the final (1 v 16, 8 v 9,
        ... for 16). ``third_place`` adds a "3rd" match between the semi-final losers."""
        return cls("single", players_in_seed_order, third_place)

    @classmethod
    def double(cls, players_in_seed_order: Sequence[int]) -> Bracket:
        """Double elimination: the single-elimination winners bracket, a losers bracket
        that every first loss drops into, a grand final (GF) between the two brackets'
        winners and, when the losers-bracket player wins it, a bracket reset (GF-reset).

        Losers bracket of a field padded to 2^R: round 1 pairs the losers of winners round
        1; then for each winners round r >= 2 a "drop" round (the survivors meet the losers
        of winners round r, in the order of :func:`_drop_order`, which keeps players who
        met before apart) and, except after the last, a round among the survivors."""
        return cls("double", players_in_seed_order, False)

    # -- construction -----------------------------------------------------------------

    def _add(self, match: _Match) -> None:
        self._matches[match.key] = match
        for src in match.sources:
            if src.kind == "winner":
                self._matches[str(src.ref)].next = match.key
            elif src.kind == "loser":
                self._matches[str(src.ref)].loser_next = match.key

    def _w(self, r: int) -> None:
        for k in range(self.size >> r):
            if r == 1:
                order = seed_positions(self.size)
                sources = (_Source("seed", order[2 * k]), _Source("seed", order[2 * k + 1]))
            else:
                sources = (_Source("winner", f"W{r - 1}-{2 * k + 1}"), _Source("winner", f"W{r - 1}-{2 * k + 2}"))
            self._add(_Match(f"W{r}-{k + 1}", "W", r, sources))

    def _build(self) -> None:
        if self.kind == "single":
            for r in range(1, self.rounds + 1):
                self._w(r)
            if self.third_place and self.rounds >= 2:
                semi = self.rounds - 1
                self._add(_Match("3rd", "3rd", 1, (_Source("loser", f"W{semi}-1"), _Source("loser", f"W{semi}-2"))))
            return
        self._w(1)
        last_l = ""
        if self.rounds >= 2:
            for k in range(self.size // 4):
                self._add(_Match(f"L1-{k + 1}", "L", 1,
                                 (_Source("loser", f"W1-{2 * k + 1}"), _Source("loser", f"W1-{2 * k + 2}"))))
            prev = 1
            for r in range(2, self.rounds + 1):
                self._w(r)
                drop, count = 2 * r - 2, self.size >> r
                for k in range(count):
                    w = _drop_order(r, k, count) + 1
                    self._add(_Match(f"L{drop}-{k + 1}", "L", drop,
                                     (_Source("winner", f"L{prev}-{k + 1}"), _Source("loser", f"W{r}-{w}"))))
                prev = drop
                if r < self.rounds:
                    for k in range(count // 2):
                        self._add(_Match(f"L{drop + 1}-{k + 1}", "L", drop + 1,
                                         (_Source("winner", f"L{drop}-{2 * k + 1}"),
                                          _Source("winner", f"L{drop}-{2 * k + 2}"))))
                    prev = drop + 1
            last_l = f"L{prev}-1"
        final = f"W{self.rounds}-1"
        lb = _Source("winner", last_l) if last_l else _Source("loser", final)
        self._add(_Match("GF", "GF", 1, (_Source("winner", final), lb)))
        # Played only when the losers-bracket player won GF: then GF's loser is the
        # winners-bracket player, listed first again.
        self._add(_Match("GF-reset", "GF-reset", 1, (_Source("loser", "GF"), _Source("winner", "GF"))))

    # -- resolution -------------------------------------------------------------------

    def keys(self) -> list[str]:
        """Every match key, in playing order (a match comes after those that feed it)."""
        return list(self._matches)

    def _resolve(self, results_by_key: Mapping[str, Result]) -> dict[str, Row]:
        unknown = sorted(set(results_by_key) - set(self._matches))
        if unknown:
            raise ValueError(f"results for matches not in this bracket: {unknown}")
        out: dict[str, Row] = {}
        for key, m in self._matches.items():
            a, b = (self._slot(src, out) for src in m.sources)
            if key == "GF-reset":
                gf = out["GF"]
                if gf[2] is None:
                    a = b = None
                elif gf[2] == gf[0] or not isinstance(gf[1], int):
                    # The winners-bracket player won the grand final: no reset.
                    if key in results_by_key:
                        raise ValueError("a result for GF-reset, but the grand final needs no reset")
                    out[key] = (EMPTY, EMPTY, EMPTY, EMPTY)
                    continue
            if isinstance(a, int) and isinstance(b, int):
                result = results_by_key.get(key)
                if result is None:
                    out[key] = (a, b, None, None)
                    continue
                if set(result.players) != {a, b}:
                    raise ValueError(f"the result for {key} names {result.players}, but {key} is {a} v {b}")
                winner = result.winner
                if winner is None:
                    raise ValueError(f"{key} has no winner: an elimination match must be decided (replay the draw)")
                out[key] = (a, b, winner, b if winner == a else a)
                continue
            if key in results_by_key:
                raise ValueError(f"a result for {key}, but its two players are not both known")
            if isinstance(a, int) and isinstance(b, _Empty):
                out[key] = (a, b, a, EMPTY)
            elif isinstance(b, int) and isinstance(a, _Empty):
                out[key] = (a, b, b, EMPTY)
            elif isinstance(a, _Empty) and isinstance(b, _Empty):
                out[key] = (a, b, EMPTY, EMPTY)
            else:
                out[key] = (a, b, None, None)
        return out

    def _slot(self, src: _Source, out: dict[str, Row]) -> Slot:
        if src.kind == "seed":
            i = int(src.ref)
            return self.players[i - 1] if i <= len(self.players) else EMPTY
        row = out[str(src.ref)]
        return row[2] if src.kind == "winner" else row[3]

    def ready(self, results_by_key: Mapping[str, Result]) -> list[Pairing]:
        """Matches whose players are known and that have no result yet, in playing order.

        Byes (a slot that no player can ever fill) are resolved here and never returned.
        A result without a single winner raises ValueError: elimination matches need one
        (the platform replays drawn games). "GF-reset" is ready only after the losers-bracket
        player won "GF"."""
        out = self._resolve(results_by_key)
        ready = [(key, row) for key, row in out.items()
                 if isinstance(row[0], int) and isinstance(row[1], int) and row[2] is None]
        return [Pairing(table=i + 1, players=(row[0], row[1]), key=key)  # type: ignore[arg-type]
                for i, (key, row) in enumerate(ready)]

    def champion(self, results_by_key: Mapping[str, Result]) -> int | None:
        """The winner of the final (single) or of the grand final / its reset (double)."""
        return self._champion(self._resolve(results_by_key))

    def _champion(self, out: dict[str, Row]) -> int | None:
        if self.kind == "single":
            w = out[f"W{self.rounds}-1"][2]
        else:
            w = out["GF-reset"][2]
            if isinstance(w, _Empty):
                w = out["GF"][2]
        return w if isinstance(w, int) else None

    def done(self, results_by_key: Mapping[str, Result]) -> bool:
        """True when every match is decided: the champion is known (and the third-place
        match, if any, is played)."""
        return all(row[2] is not None for row in self._resolve(results_by_key).values())

    def placings(self, results_by_key: Mapping[str, Result]) -> dict[int, int]:
        """Final place of every player, once :meth:`done` (ValueError before).

        Players knocked out at the same stage share a place: in a single elimination of 8
        without a third-place match, places are 1, 2, 3, 3, 5, 5, 5, 5; with it, 1, 2, 3, 4,
        5, 5, 5, 5. In double elimination, players knocked out in the same losers round
        share a place; the losers final's loser is 3rd, the grand final's loser 2nd."""
        out = self._resolve(results_by_key)
        if not all(row[2] is not None for row in out.values()):
            raise ValueError("the bracket is not finished: places are known once every match is decided")
        stage: dict[int, float] = {}
        for key, m in self._matches.items():
            winner, loser = out[key][2], out[key][3]
            if not isinstance(loser, int):
                if m.bracket == "3rd" and isinstance(winner, int):
                    stage[winner] = self.rounds - 0.5  # third place by a bye
                continue
            if m.bracket == "W" and self.kind == "single" or m.bracket == "L":
                stage[loser] = m.round
            elif m.bracket == "3rd":
                stage[loser] = self.rounds - 0.75
                stage[winner] = self.rounds - 0.5  # type: ignore[index]
            elif m.bracket in ("GF", "GF-reset"):
                stage[loser] = 2 * self.rounds
        champion = self._champion(out)
        assert champion is not None
        stage[champion] = 2 * self.rounds + 1
        return {p: 1 + sum(1 for x in stage.values() if x > st) for p, st in stage.items()}

    # -- drawing ----------------------------------------------------------------------

    def _title(self, bracket: str, rnd: int) -> str:
        if bracket == "3rd":
            return "Third place"
        if bracket == "GF":
            return "Grand final"
        if bracket == "GF-reset":
            return "Bracket reset"
        if bracket == "L":
            return "Losers final" if rnd == 2 * self.rounds - 2 else f"Losers round {rnd}"
        if self.kind == "double":
            return "Winners final" if rnd == self.rounds else f"Winners round {rnd}"
        return {0: "Final", 1: "Semi-finals", 2: "Quarter-finals"}.get(self.rounds - rnd, f"Round {rnd}")

    def layout(self, results_by_key: Mapping[str, Result]) -> dict:
        """A JSON-able drawing plan::

            {"kind": "double", "champion": 7 | None,
             "rounds": [{"bracket": "W" | "L" | "3rd" | "GF" | "GF-reset", "round": 1,
                         "title": "Winners round 1",
                         "matches": [{"key": "W1-1", "players": [1, null],
                                      "sources": ["seed 1", "bye"],   # or "W1-2 winner", "W2-1 loser"
                                      "bye": true, "skipped": false, "winner": 1 | null, "loser": null,
                                      "ready": false, "played": false,
                                      "next": "W2-1", "loser_next": "L1-1" | null}]}]}

        ``players`` hold entry ids or null (not known yet, or nobody). ``bye``: a match
        decided without play (one player against nobody); ``skipped``: nobody plays it (two
        empty losers-bracket slots, or a bracket reset that was not needed). Rounds come
        winners first, then losers, third place, grand final, reset."""
        out = self._resolve(results_by_key)
        field = len(self.players)
        rounds: dict[tuple[str, int], dict] = {}
        for key, m in self._matches.items():
            a, b, w, lo = out[key]
            rnd = rounds.setdefault((m.bracket, m.round), {"bracket": m.bracket, "round": m.round,
                                                           "title": self._title(m.bracket, m.round), "matches": []})
            both = isinstance(a, int) and isinstance(b, int)
            rnd["matches"].append({
                "key": key,
                "players": [x if isinstance(x, int) else None for x in (a, b)],
                "sources": [src.label(field) for src in m.sources],
                "bye": isinstance(w, int) and not both,
                "skipped": isinstance(w, _Empty),
                "winner": w if isinstance(w, int) else None,
                "loser": lo if isinstance(lo, int) else None,
                "ready": both and w is None,
                "played": key in results_by_key,
                "next": m.next,
                "loser_next": m.loser_next,
            })
        order = {"W": 0, "L": 1, "3rd": 2, "GF": 3, "GF-reset": 4}
        return {"kind": self.kind, "champion": self._champion(out),
                "rounds": [rounds[k] for k in sorted(rounds, key=lambda k: (order[k[0]], k[1]))]}


def swiss_top_cut(table: Sequence[Standing], cut: int, *, third_place: bool = False) -> Bracket:
    """A single-elimination bracket of the top ``cut`` (4, 8 or 16) non-dropped entries of a
    Swiss ``table`` (from :func:`standings`), seeded by their Swiss position."""
    if cut < 2:
        raise ValueError(f"a top cut takes at least 2 players, not {cut}")
    top = [s.player for s in sorted(table, key=lambda s: s.position) if not s.dropped][:cut]
    return Bracket.single(top, third_place=third_place)


class SingleElimination(Format):
    """Single elimination of the whole field in seed order (:meth:`Bracket.single`), with
    a third-place match when ``third_place``."""

    key = "single_elim"
    label = "Single elimination"
    settings = ("third_place",)
    fixed_rounds = False
    has_bracket = True

    def bracket(self, state: EventState) -> Bracket | None:
        ids = [p.id for p in state.players]
        if len(ids) < 2:
            return None  # not started yet: nobody is seeded
        return Bracket.single(ids, third_place=bool(state.settings.get("third_place")))

    def next_pairings(self, state: EventState) -> Step:
        return bracket_step(state, self.bracket(state), "elimination")


class DoubleElimination(SingleElimination):
    """Double elimination of the whole field (:meth:`Bracket.double`)."""

    key = "double_elim"
    label = "Double elimination"
    settings = ()

    def bracket(self, state: EventState) -> Bracket | None:
        ids = [p.id for p in state.players]
        if len(ids) < 2:
            return None
        return Bracket.double(ids)


class SwissWithTopCut(Swiss):
    """Swiss rounds, then a single elimination of the top ``top_cut`` (4, 8 or 16) entries
    still in, seeded by their Swiss position; Match the Twos first decides a tie across
    the cut line."""

    key = "swiss_cut"
    label = "Swiss with a top cut"
    settings = ("rounds", "top_cut", "third_place", "late_entry_rounds")
    has_bracket = True

    def after_group(self, state: EventState) -> Step:
        if state.cut_entries:
            return bracket_step(state, self.bracket(state), "top_cut")
        top_cut = state.settings["top_cut"]
        table = state.standings()
        live = [st for st in table if not st.dropped]
        cut = min(top_cut, len(live))
        if cut < 2:
            return finish_group(state)
        step = tiebreak_step(state, table, cut, "cut", f"the top-{top_cut} cut line")
        if step is not None:
            return step
        entries = [st.player for st in live[:cut]]
        step = bracket_step(state, Bracket.single(entries, third_place=bool(state.settings.get("third_place"))),
                            "top_cut")
        step.cut = entries
        return step

    def bracket(self, state: EventState) -> Bracket | None:
        if not state.cut_entries:
            return None
        return Bracket.single(list(state.cut_entries), third_place=bool(state.settings.get("third_place")))
