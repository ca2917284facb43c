"""Single and double elimination brackets, built from a seeded list of entry ids.

A Bracket is a fixed, pure description of every match slot; where the players of a match
come from ("seed 3", "winner of W1-2", "loser of W2-1") never changes. Everything that
depends on results takes ``results_by_key`` (a mapping from match key to the finished
:class:`Result` whose ``match_key`` is that key), so the caller stores only results and
the seed order, and rebuilds the bracket at will.

Match keys: ``W<round>-<n>`` winners bracket (the only bracket of single elimination),
``L<round>-<n>`` losers bracket, ``GF`` grand final, ``GF-reset`` its bracket reset,
``3rd`` the third-place match. Rounds and match numbers count from 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .types import Pairing, Result, Standing


class Bracket:
    """An elimination bracket. Build with :meth:`single` or :meth:`double`."""

    kind: str  # "single" or "double"
    players: tuple[int, ...]  # in seed order
    third_place: bool

    @classmethod
    def single(cls, players_in_seed_order: Sequence[int], *, third_place: bool = False) -> Bracket:
        """Single elimination: the field padded to a power of two with byes for the top
        seeds; standard seeding so seeds 1 and 2 can meet only in the final (1 v 16, 8 v 9,
        ... for 16). ``third_place`` adds a "3rd" match between the semi-final losers."""
        raise NotImplementedError

    @classmethod
    def double(cls, players_in_seed_order: Sequence[int]) -> Bracket:
        """Double elimination: the single-elimination winners bracket, a losers bracket
        that every first loss drops into, a grand final (GF) between the two brackets'
        winners and, when the losers-bracket player wins it, a bracket reset (GF-reset)."""
        raise NotImplementedError

    def keys(self) -> list[str]:
        """Every match key, in playing order."""
        raise NotImplementedError

    def ready(self, results_by_key: Mapping[str, Result]) -> list[Pairing]:
        """Matches whose players are known and that have no result yet, in playing order.

        Byes (a slot that no player can ever fill) are resolved here and never returned.
        A result without a single winner raises ValueError: elimination matches need one
        (the platform replays drawn games). "GF-reset" is ready only after the losers-bracket
        player won "GF"."""
        raise NotImplementedError

    def done(self, results_by_key: Mapping[str, Result]) -> bool:
        """True when the champion is known (and the third-place match, if any, is played)."""
        raise NotImplementedError

    def champion(self, results_by_key: Mapping[str, Result]) -> int | None:
        """The winner of the final (single) or of the grand final / its reset (double)."""
        raise NotImplementedError

    def placings(self, results_by_key: Mapping[str, Result]) -> dict[int, int]:
        """Final place of every eliminated player (and of the champion, 1), so far.

        Players knocked out at the same stage share a place: in a single elimination of 8
        without a third-place match, places are 1, 2, 3, 3, 5, 5, 5, 5."""
        raise NotImplementedError

    def layout(self, results_by_key: Mapping[str, Result]) -> dict:
        """A JSON-able drawing plan::

            {"kind": "double", "champion": 7 | None,
             "rounds": [{"bracket": "W" | "L" | "GF" | "3rd", "round": 1, "title": "Winners round 1",
                         "matches": [{"key": "W1-1", "players": [1, null],
                                      "sources": ["seed 1", "bye"],   # or "W1-2 winner", "W2-1 loser"
                                      "bye": true, "winner": 1 | null, "loser": null,
                                      "ready": false, "played": false,
                                      "next": "W2-1", "loser_next": "L1-1" | null}]}]}

        ``players`` hold entry ids or null (not known yet, or nobody: a bye)."""
        raise NotImplementedError


def swiss_top_cut(table: Sequence[Standing], cut: int, *, third_place: bool = False) -> Bracket:
    """A single-elimination bracket of the top ``cut`` (4, 8 or 16) non-dropped entries of a
    Swiss ``table`` (from :func:`standings`), seeded by their Swiss position."""
    raise NotImplementedError
