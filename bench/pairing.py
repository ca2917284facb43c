"""Swiss pairing speed and quality for large fields (issue 13's targets).

For each field size: rounds 1 to R-1 are paired by ``swiss_pairings`` and given random
results (best of 3; 2-0, 2-1, 1-2, 0-2 and a few draws), then round R is paired
``--repeat`` times and timed. Quality of round R: rematches, pairs across score groups
(players on different match points) and the largest points gap in one pair.

Also: losers-bracket rematches of double elimination over random brackets (``--brackets``).

Usage: ``python bench/pairing.py [--sizes 1024 10000] [--round 4] [--repeat 5] [--seed 1]
[--brackets 16 32 64] [--bracket-runs 150] [--markdown]``.
Targets: under 0.5 s for 1,024 players and under 3 s for 10,000.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import shlex
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tournaments.formats import Bracket, Player, Result, bye_result, place_points, swiss_pairings  # noqa: E402

TARGETS = {1024: 0.5, 10000: 3.0}


def random_result(rng: random.Random, round_number: int, a: int, b: int) -> Result:
    x = rng.random()
    if x < 0.05:
        return Result(round=round_number, players=(a, b), places=(1, 1), game_wins=(1, 1), games=3)
    wa, wb = rng.choice([(2, 0), (2, 1), (1, 2), (0, 2)])
    return Result(round=round_number, players=(a, b), places=(1, 2) if wa > wb else (2, 1), game_wins=(wa, wb),
                  games=wa + wb)


def measure(n: int, round_number: int, repeat: int, seed: int) -> dict:
    rng = random.Random(seed)
    players = [Player(id=i, seed=i) for i in range(1, n + 1)]
    results: list[Result] = []
    for r in range(1, round_number):
        for p in swiss_pairings(players, results, r, seed=seed):
            results.append(bye_result(r, p.players[0]) if p.bye else random_result(rng, r, *p.players))
    times = []
    pairings = []
    for _ in range(repeat):
        start = time.perf_counter()
        pairings = swiss_pairings(players, results, round_number, seed=seed)
        times.append(time.perf_counter() - start)
    points: dict[int, int] = {}
    met: set[frozenset[int]] = set()
    for r in results:
        for pid, pts in zip(r.players, place_points(r.places), strict=True):
            points[pid] = points.get(pid, 0) + pts
        if len(r.players) == 2:
            met.add(frozenset(r.players))
    pairs = [p.players for p in pairings if not p.bye]
    groups = len(set(points.values()))
    return {
        "players": n,
        "round": round_number,
        "score_groups": groups,
        "median_s": statistics.median(times),
        "max_s": max(times),
        "rematches": sum(frozenset(p) in met for p in pairs),
        "cross_group_pairs": sum(points.get(a, 0) != points.get(b, 0) for a, b in pairs),
        "pairs": len(pairs),
        "largest_gap": max((abs(points.get(a, 0) - points.get(b, 0)) for a, b in pairs), default=0),
        "target_s": TARGETS.get(n),
    }


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _alternating_reverse(r: int, k: int, count: int) -> int:
    """The baseline drop order: reversed in even winners rounds, as is in odd ones."""
    return count - 1 - k if r % 2 == 0 else k


def losers_rematches(sizes: list[int], runs: int, seed: int) -> list[dict]:
    """Mean losers-bracket rematches per double elimination over ``runs`` random brackets
    (a coin flip decides each match), with the bracket's drop order and with the baseline."""
    import tournaments.formats.bracket as bracket_module

    rows = []
    for n in sizes:
        row = {"players": n, "runs": runs}
        for name, order in (("ours", bracket_module._drop_order), ("baseline", _alternating_reverse)):
            saved = bracket_module._drop_order
            bracket_module._drop_order = order
            try:
                total = 0
                for run in range(runs):
                    rng = random.Random(seed * 1_000_003 + run)
                    bracket = Bracket.double(list(range(1, n + 1)))
                    results: dict[str, Result] = {}
                    while ready := bracket.ready(results):
                        for p in ready:
                            a, b = p.players
                            places = (1, 2) if rng.random() < 0.5 else (2, 1)
                            results[p.key] = Result(round=1, players=(a, b), places=places,
                                                    game_wins=(int(places[0] == 1), int(places[1] == 1)), games=1,
                                                    match_key=p.key)
                    met: set[frozenset[int]] = set()
                    for key in bracket.keys():
                        if key in results:
                            pair = frozenset(results[key].players)
                            total += key.startswith("L") and pair in met
                            met.add(pair)
                row[name] = total / runs
            finally:
                bracket_module._drop_order = saved
        rows.append(row)
    return rows


def markdown(rows: list[dict], command: str) -> str:
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "## Tournament pairing",
        "",
        f"Swiss pairing of one round after random results (`tournaments.formats.swiss_pairings`), "
        f"one process. Command: `{command}`. Machine: {cpu_model()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}. Date: {when}. Times are wall clock for the pairing call alone "
        f"(rounds before it are built untimed); quality is of the timed round. Load average when the "
        f"section was written: {os.getloadavg()[0]:.1f} (with other work on the cores, times are upper bounds).",
        "",
        "| Players | Round | Score groups | Median s | Max s | Target | Met | Rematches | Pairs across groups "
        "| Largest points gap |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |",
    ]
    for r in rows:
        target = f"< {r['target_s']} s" if r["target_s"] else ""
        met = ("yes" if r["max_s"] < r["target_s"] else "no") if r["target_s"] else ""
        lines.append(
            f"| {r['players']:,} | {r['round']} | {r['score_groups']} | {r['median_s']:.3f} | {r['max_s']:.3f} "
            f"| {target} | {met} | {r['rematches']} | {r['cross_group_pairs']} of {r['pairs']} "
            f"| {r['largest_gap']} |"
        )
    return "\n".join(lines) + "\n"


def markdown_losers(rows: list[dict]) -> str:
    lines = [
        "",
        "Double elimination, losers-bracket rematches (two players meeting again in the losers bracket), "
        f"mean per event over {rows[0]['runs']} random brackets each, with the bracket's drop order "
        "(reversed, halves swapped, both, as is) and with the baseline that reverses every other round:",
        "",
        "| Players | Rematches per event | Baseline |",
        "| ---: | ---: | ---: |",
    ]
    lines += [f"| {r['players']} | {r['ours']:.2f} | {r['baseline']:.2f} |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 10000])
    parser.add_argument("--round", type=int, default=4, help="the round to pair and time (default 4)")
    parser.add_argument("--repeat", type=int, default=5, help="timed pairings per size (default 5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--brackets", type=int, nargs="*", default=[16, 32, 64],
                        help="double-elimination sizes for the losers-bracket rematch count (none: skip)")
    parser.add_argument("--bracket-runs", type=int, default=150, help="random brackets per size (default 150)")
    parser.add_argument("--markdown", action="store_true", help="print the RESULTS.md section")
    args = parser.parse_args(argv)
    command = "python " + shlex.join(["bench/pairing.py", *(argv if argv is not None else sys.argv[1:])])
    rows = []
    for n in args.sizes:
        row = measure(n, args.round, args.repeat, args.seed)
        rows.append(row)
        if not args.markdown:
            print(row, flush=True)
    losers = losers_rematches(args.brackets, args.bracket_runs, args.seed) if args.brackets else []
    if args.markdown:
        print(markdown(rows, command.replace(" --markdown", "")), end="")
        if losers:
            print(markdown_losers(losers), end="")
    else:
        for row in losers:
            print(row, flush=True)
    return 0 if all(r["target_s"] is None or r["max_s"] < r["target_s"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
