"""``make bench``: engine and bot benchmarks, written to bench/RESULTS.md.

1. Engine speed: for every configuration below whose game the engine can import, runs
   ``python -m engine bench --json`` in a fresh interpreter (one core, nothing else
   loaded) and records games and actions per second with the exact command. A game the
   engine cannot import yet is listed as "not built yet".
2. Bots: when ``engine.bots.bench`` exists, its ``bot_benchmarks`` (strength pairings and
   decision speed, each with the command that reproduces it) adds its own section.
3. Tournament pairing: bench/pairing.py (Swiss pairing speed and quality for 1,024 and
   10,000 players) adds its section.

The file starts with the machine (CPU model, cores, Python version) and the date.

Usage: ``python bench/run.py [--games N] [--bot-games N] [--skip-bots]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "RESULTS.md"

#: (game, players or None for the game's minimum).
CONFIGURATIONS: list[tuple[str, int | None]] = [("tempofront", None), ("conquest", 2), ("conquest", 4)]


def cpu_model() -> str:
    """The CPU's marketing name, from /proc/cpuinfo where there is one."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def game_missing(name: str) -> str | None:
    """Why the engine cannot load ``name``, or None when it can."""
    sys.path.insert(0, str(ROOT))
    try:
        from engine import games

        games[name]
    except (ImportError, AttributeError) as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        importlib.invalidate_caches()
    return None


def run_one(game: str, players: int | None, games_count: int) -> dict:
    """One figure: the command, and either its JSON result or the error it printed."""
    args = [sys.executable, "-m", "engine", "bench", "--game", game, "--games", str(games_count), "--json"]
    if players is not None:
        args += ["--players", str(players)]
    shown = "python " + shlex.join(args[1:])
    completed = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    if completed.returncode != 0:
        return {"command": shown, "error": (completed.stderr or completed.stdout).strip().splitlines()[-1:]}
    return {"command": shown, "result": json.loads(completed.stdout.strip().splitlines()[-1])}


def bot_section(games_per_pairing: int, jobs: int) -> str | None:
    """The bots' own benchmark section, or None when the engine has no bot benchmarks."""
    sys.path.insert(0, str(ROOT))
    try:
        from engine.bots.bench import bot_benchmarks
    except ImportError as exc:
        print(f"bots: no benchmarks yet ({exc})")
        return None
    result = bot_benchmarks(games_per_pairing=games_per_pairing, jobs=jobs,
                            progress=lambda line: print(f"  {line}", flush=True))
    return result["markdown"]


def pairing_section() -> str:
    """Swiss pairing speed and quality (bench/pairing.py), in a fresh interpreter."""
    args = [sys.executable, "bench/pairing.py", "--markdown"]
    completed = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    if not completed.stdout.startswith("## "):
        error = (completed.stderr or completed.stdout).strip().splitlines()[-1:]
        return f"## Tournament pairing\n\n`python bench/pairing.py` failed: {' '.join(error)}\n"
    return completed.stdout


def render(rows: list[dict], machine: dict) -> str:
    lines = [
        "# Benchmarks",
        "",
        "Written by `make bench` (bench/run.py); each figure names the exact command that produced it.",
        "",
        f"- Machine: {machine['cpu']}, {machine['cores']} cores, {machine['system']}",
        f"- Python: {machine['python']}",
        f"- Date: {machine['date']}",
        "",
        "## Engine speed",
        "",
        "Random bot against random bot, one process on one core, starter decks, seeds 1..N.",
        "",
        "| Game | Players | Games | Games/s | Actions/s | Actions/game | Seconds | Command |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in rows:
        label, players = row["game"], row["players"] or "min"
        if "missing" in row:
            lines.append(f"| {label} | {players} | not built yet | | | | | `{row['missing']}` |")
        elif "error" in row:
            lines.append(f"| {label} | {players} | failed | | | | | `{row['command']}`: {' '.join(row['error'])} |")
        else:
            r = row["result"]
            lines.append(
                f"| {label} | {r['players']} | {r['games']} | {r['games_per_second']} | {r['actions_per_second']} "
                f"| {r['mean_actions_per_game']} | {r['seconds']} | `{row['command']}` |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per engine speed figure (default 200)")
    parser.add_argument("--bot-games", type=int, default=100, help="games per bot strength pairing (default 100)")
    parser.add_argument("--skip-bots", action="store_true", help="measure engine speed only")
    parser.add_argument("--jobs", type=int, default=0,
                        help="worker processes per bot strength pairing (default 0: one per core)")
    args = parser.parse_args(argv)

    machine = {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
    rows = []
    for game, players in CONFIGURATIONS:
        missing = game_missing(game)
        if missing:
            print(f"{game}: not built yet ({missing})")
            rows.append({"game": game, "players": players, "missing": missing})
            continue
        print(f"{game} ({players or 'min'} players): running {args.games} games ...", flush=True)
        row = {"game": game, "players": players, **run_one(game, players, args.games)}
        print(f"  {row.get('result') or row.get('error')}")
        rows.append(row)
    text = render(rows, machine)
    if not args.skip_bots:
        print(f"bots: strength pairings ({args.bot_games} games each) and decision speed ...", flush=True)
        section = bot_section(args.bot_games, args.jobs)
        if section:
            text += "\n" + section.strip() + "\n"
    else:
        text += ("\n## Bots\n\nNot measured in this run (`--skip-bots`); `make bench` measures bot "
                 "strength and decision speed (docs/bots.md).\n")
    print("tournament pairing: bench/pairing.py ...", flush=True)
    text += "\n" + pairing_section()
    RESULTS.write_text(text, encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 1 if any("error" in row for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
