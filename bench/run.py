"""``make bench``: engine, pairing and live benchmarks, written into bench/RESULTS.md.

1. Engine speed: for every configuration below whose game the engine can import, runs
   ``python -m engine bench --json`` in a fresh interpreter (one core, nothing else
   loaded) and records games and actions per second with the exact command. A game the
   engine cannot import yet is listed as "not built yet".
2. Tournament pairing: bench/pairing.py (Swiss pairing speed and quality for 1,024 and
   10,000 players).
3. Live bot latency: bench/live_bot_latency.py on the embedded stack (a live bot's wait for
   its move while the match worker is busy).
4. Metagame pages: bench/meta.py (100,000 recorded matches in a ``meta_bench`` database of
   DATABASE_URL's PostgreSQL server, dropped and recreated; the tick over all of them, then
   page latency); without a PostgreSQL DATABASE_URL the section says so.
5. With ``--strength`` only (hours on two cores): the bots' strength pairings and decision
   speed (``engine.bots.bench``).
6. With ``--live-tournament`` only (about 8 minutes; needs ``DATABASE_URL`` and ``REDIS_URL``):
   a 256-person live Swiss of scripted players (bench/live_tournament.py), how long after
   each round starts every player has their board.
7. With ``--lab`` only (about a minute; needs ``REDIS_URL`` and a PostgreSQL ``DATABASE_URL``,
   whose server gets a ``lab_bench`` database, dropped and recreated): bench/lab.py, a deck
   lab of 1,000 random-pilot matches on one and on two lab workers beside the engine's
   own time for the same games.

Each run rewrites only the sections it measured, each with the machine and the date; the
other sections of RESULTS.md (measured by hand with the commands they name) stay as they
are. ``make bench`` stays well under 15 minutes; ``make bench BENCH_ARGS=--strength`` is
the long run, ``make bench BENCH_ARGS=--live-tournament`` adds the live Swiss.

Usage: ``python bench/run.py [--games N] [--strength [--bot-games N]] [--live-tournament] [--lab]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import importlib.util
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


def machine_info() -> dict:
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def meta_section(machine: dict) -> tuple[str, str]:
    """The metagame pages over 100,000 matches on PostgreSQL (bench/meta.py), in a database
    ``meta_bench`` beside DATABASE_URL's (dropped and recreated): (heading, section)."""
    spec = importlib.util.spec_from_file_location("meta_bench", ROOT / "bench" / "meta.py")
    meta_bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(meta_bench)
    args = [sys.executable, "bench/meta.py", "--matches", "100000"]
    shown = "DATABASE_URL=postgres://.../meta_bench python " + shlex.join(args[1:])
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        return meta_bench.SECTION, meta_bench.markdown(None, machine_line(machine), shown, "needs DATABASE_URL "
                                                       "(PostgreSQL)")
    env = dict(os.environ, DATABASE_URL=url.rsplit("/", 1)[0] + "/meta_bench")
    completed = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=env)
    try:
        result = json.loads(completed.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        error = (completed.stderr or completed.stdout).strip().splitlines()[-1:]
        return meta_bench.SECTION, meta_bench.markdown(None, machine_line(machine), shown,
                                                       f"failed: {' '.join(error)}")
    return meta_bench.SECTION, meta_bench.markdown(result, machine_line(machine), shown)


def machine_line(machine: dict) -> str:
    return (f"Measured {machine['date']} on {machine['cpu']}, {machine['cores']} cores, {machine['system']}, "
            f"{machine['python']}.")


def render(rows: list[dict], machine: dict) -> str:
    lines = [
        "## Engine speed",
        "",
        "Random bot against random bot, one process on one core, starter decks, seeds 1..N. "
        + machine_line(machine),
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


def live_latency_section(machine: dict) -> str:
    """A live bot's wait while the match worker is busy (bench/live_bot_latency.py)."""
    args = [sys.executable, "bench/live_bot_latency.py", "--matches", "4", "--load", "20"]
    shown = "python " + shlex.join(args[1:])
    completed = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    head = ["## Live bot latency (make bench)", "",
            "A person plays live TempoFront matches against `greedy` on the embedded stack (`make run`'s "
            "Procfile) while 20 bot matches wait for the match worker at all times; the wait is from the "
            "person's move to the bot's, as stored in the live match's log. " + machine_line(machine), ""]
    try:
        result = json.loads(completed.stdout[completed.stdout.index("{"):])
    except ValueError:
        error = (completed.stderr or completed.stdout).strip().splitlines()[-1:]
        return "\n".join(head + [f"`{shown}` failed: {' '.join(error)}"]) + "\n"
    wait = result["wait_ms"]
    head += ["| Bot turns | p50 | p95 | p99 | max | over 1 s | Command |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | --- |",
             f"| {result['bot_turns']} | {wait['p50']} ms | {wait['p95']} ms | {wait['p99']} ms | {wait['max']} ms "
             f"| {result['over_1s']} | `{shown}` |"]
    return "\n".join(head) + "\n"


LIVE_TOURNAMENT = "Live Swiss of people (256 players)"


def live_tournament_section(machine: dict, players: int = 256, rounds: int = 2) -> str:
    """A people-only live Swiss of scripted players on PostgreSQL and Redis
    (bench/live_tournament.py): board-open latency per round, matches lost or doubled."""
    # Two web processes, as docker-compose runs the web service (uvicorn --workers 2).
    args = [sys.executable, "bench/live_tournament.py", "--services", "--players", str(players),
            "--rounds", str(rounds), "--web-workers", "2"]
    shown = "DATABASE_URL=... REDIS_URL=... python " + shlex.join(args[1:])
    missing = [name for name in ("DATABASE_URL", "REDIS_URL") if not os.environ.get(name)]
    if missing:
        return live_tournament_markdown(None, machine, shown, f"needs {' and '.join(missing)}")
    completed = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    try:
        result = json.loads(completed.stdout[completed.stdout.index("{"):])
    except ValueError:
        error = (completed.stderr or completed.stdout).strip().splitlines()[-1:]
        return live_tournament_markdown(None, machine, shown, f"failed: {' '.join(error)}")
    return live_tournament_markdown(result, machine, shown)


def web_processes_text(result: dict | None) -> str:
    count = (result or {}).get("web_processes", 2)
    if count == 1:
        return "one web process"
    return (f"{count} web processes, `python -m web.serve --workers {count}` (uvicorn, each process on its own "
            "`SO_REUSEPORT` socket) as docker-compose runs the web service")


def stalls_text(result: dict) -> str:
    """The boards that waited over 30 s for a view, and how many of those had missed one."""
    stalls = result.get("stalls", 0)
    if "stalls_with_a_missed_view" not in result:
        return f"{stalls} waits over 30 s for a view"
    missed = result["stalls_with_a_missed_view"]
    return (f"{stalls} waits over 30 s for a view, {missed} of them with a view missed (the others waited on an "
            "opponent thinking over 30 s: 1 think in 400 at a 5 s mean)")


def live_tournament_markdown(result: dict | None, machine: dict, shown: str, problem: str = "") -> str:
    """The section of a bench/live_tournament.py summary (``result``), or of why there is none."""
    lines = [f"## {LIVE_TOURNAMENT}", "",
             "Goal: a 256-person live Swiss on this machine with scripted players (think time 5 s): round start "
             "to every board open, p95 under 2 s; no match lost or doubled.", "",
             "The stack as `make serve` starts it (the Procfile: " + web_processes_text(result) + ", match worker, "
             "live worker, periodic worker, beat) on PostgreSQL and Redis with `DJANGO_DEBUG=0`; the players are "
             "scripted "
             "clients in two processes on the same machine, each holding `/ws/notify/` open, opening its board "
             "socket on `notify.match` and playing random legal actions after an exponentially distributed think "
             "time (mean 5 s) until the round's time limit decides the game. Board open = first seat view on the "
             "board socket minus `Round.starts_at` (one clock). Round 1 is paired by the script's own process "
             "(`tournament_start`, as the organiser's button), later rounds by the match worker "
             "(`tournaments.advance` at the round's limit). " + machine_line(machine), ""]
    if result is None:
        return "\n".join(lines + [f"Not measured: `{shown}` {problem}."]) + "\n"

    def ms(figures: dict | None, key: str) -> str:
        return "" if not figures else f"{figures[key] * 1000:,.0f} ms"

    settings = result["settings"]
    lines += [f"Event settings: {settings['round_limit_minutes']}-minute rounds, no-show after "
              f"{settings['no_show_minutes']} minute, clock {settings['clock_initial']} s + "
              f"{settings['clock_increment']} s, no check-in. Load average (1 min) "
              f"{result['load_average_1min']['before']} before, {result['load_average_1min']['after']} after.", "",
              "| Round | Boards | Board open p50 | p95 | max | start to match created (p95) "
              "| created to notice (p95) | notice to first view (p95) |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in result["rounds"] + [{"round": "all", "boards": (result["board_open_s"] or {}).get("n", 0),
                                    "board_open_s": result["board_open_s"], "split_s": {}}]:
        split = row["split_s"]
        lines.append(f"| {row['round']} | {row['boards']} | {ms(row['board_open_s'], 'p50')} "
                     f"| {ms(row['board_open_s'], 'p95')} | {ms(row['board_open_s'], 'max')} "
                     f"| {ms(split.get('start_to_match_created'), 'p95')} "
                     f"| {ms(split.get('created_to_notice'), 'p95')} "
                     f"| {ms(split.get('notice_to_first_view'), 'p95')} |")
    overall = result["board_open_s"] or {}
    met = bool(overall) and overall["p95"] < 2 and result["lost"] == 0 and result["doubled"] == 0
    lines += ["", f"Players {result['players']}, rounds {len(result['rounds'])}, live matches {result['matches']}, "
              f"**lost {result['lost']}, doubled {result['doubled']}**, unfinished {result['unfinished']}, boards "
              f"missing {result['boards_missing']}; {result['actions']} actions (round trip p50 "
              f"{ms(result['action_round_trip_s'], 'p50')}, p95 {ms(result['action_round_trip_s'], 'p95')}); "
              + stalls_text(result) + f"; wall "
              f"time {result['wall_s']:.0f} s. Target **{'met' if met else 'not met'}**. Command: `{shown}`.", ""]
    parts = (result.get("round_1_in_this_process") or {}).get("parts") or {}
    if parts:
        lines += ["Round 1 in the process that paired it (time inside each function, summed; a new match "
                  "broadcasts no views, and the after-commit batch sends the notices together, then the tasks):",
                  "", "| Part | Calls | Seconds | ms per call |",
                  "| --- | ---: | ---: | ---: |"]
        lines += [f"| {name} | {p['calls']} | {p['seconds']} | {p['ms_per_call']} |" for name, p in parts.items()]
        lines.append("")
    cpu_rows = [(row["round"], row.get("window_s"), row.get("cpu_s_from_start_to_last_board") or {})
                for row in result["rounds"]]
    if any(used for _, _, used in cpu_rows):
        lines += ["CPU seconds used from the round's start to its last board open (two cores: at most twice "
                  "the window):", ""]
        for number, window, used in cpu_rows:
            lines.append(f"- round {number} ({window} s): "
                         + ", ".join(f"{name} {seconds}" for name, seconds in used.items()))
        lines.append("")
    quiet = result.get("one_board_open_on_a_quiet_server") or {}
    if quiet:
        lines.append(f"One board open at a time on the quiet server afterwards: p50 {ms(quiet['board_open_s'], 'p50')}"
                     f" (handshake to first view), notify socket {ms(quiet['notify_open_s'], 'p50')}, the opening "
                     f"view built from the stored log {ms(quiet['opening_view_built_in_process_s'], 'p50')}.")
    return "\n".join(lines) + "\n"


def sections_of(text: str) -> list[tuple[str, str]]:
    """``text`` as (heading, body) pairs split at level-2 headings; the preamble's heading is ''."""
    parts: list[tuple[str, str]] = []
    heading, body = "", []
    for line in text.splitlines(keepends=True):
        if line.startswith("## "):
            parts.append((heading, "".join(body)))
            heading, body = line[3:].strip(), [line]
        else:
            body.append(line)
    parts.append((heading, "".join(body)))
    return parts


def merge(existing: str, measured: dict[str, str]) -> str:
    """``existing`` with each section named in ``measured`` replaced (new ones appended)."""
    preamble = ("# Benchmarks\n\nEach section says when, on which machine and with which command it was "
                "measured. `make bench` (bench/run.py) rewrites the sections it measures; the others were "
                "measured by hand with the commands they name.\n\n")
    out, seen = [preamble], set()
    for heading, body in sections_of(existing):
        if not heading:
            continue
        if heading in measured:
            out.append(measured[heading].rstrip("\n") + "\n\n")
            seen.add(heading)
        else:
            out.append(body.rstrip("\n") + "\n\n")
    for heading, body in measured.items():
        if heading not in seen:
            out.append(body.rstrip("\n") + "\n\n")
    return "".join(out).rstrip("\n") + "\n"


def lab_section() -> str | None:
    """bench/lab.py's "Deck lab" section, on a ``lab_bench`` database of DATABASE_URL's
    server; None (said why) without PostgreSQL and Redis or when it fails."""
    url, redis_url = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not url.startswith("postgres") or not redis_url:
        print("  deck lab: needs a PostgreSQL DATABASE_URL and REDIS_URL; skipped")
        return None
    env = dict(os.environ, DATABASE_URL=url.rsplit("/", 1)[0] + "/lab_bench")
    done = subprocess.run([sys.executable, "bench/lab.py", "--matches", "1000", "--workers", "1,2"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1800)
    if done.returncode != 0 or "## Deck lab" not in done.stdout:
        print(f"  deck lab failed: {(done.stderr or done.stdout)[-2000:]}")
        return None
    return done.stdout[done.stdout.index("## Deck lab"):]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per engine speed figure (default 200)")
    parser.add_argument("--strength", action="store_true",
                        help="also measure bot strength and decision speed (hours on two cores)")
    parser.add_argument("--bot-games", type=int, default=100, help="games per bot strength pairing (default 100)")
    parser.add_argument("--jobs", type=int, default=0,
                        help="worker processes per bot strength pairing (default 0: one per core)")
    parser.add_argument("--skip-live", action="store_true", help="leave out the live bot latency run")
    parser.add_argument("--live-tournament", action="store_true",
                        help="also run a 256-person live Swiss of scripted players (needs DATABASE_URL and REDIS_URL)")
    parser.add_argument("--lab", action="store_true",
                        help="also time a deck lab of 1,000 matches on 1 and 2 lab workers (DATABASE_URL, REDIS_URL)")
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
    measured = {"Engine speed": render(rows, machine)}
    if args.strength:
        print(f"bots: strength pairings ({args.bot_games} games each) and decision speed ...", flush=True)
        section = bot_section(args.bot_games, args.jobs)
        if section:
            measured["Bots"] = section.strip() + "\n\n" + machine_line(machine) + "\n"
    print("tournament pairing: bench/pairing.py ...", flush=True)
    measured["Tournament pairing"] = pairing_section()
    if not args.skip_live:
        print("live bot latency: bench/live_bot_latency.py ...", flush=True)
        measured["Live bot latency (make bench)"] = live_latency_section(machine)
    if os.environ.get("DATABASE_URL", "").startswith("postgres"):
        print("metagame pages: bench/meta.py (100,000 matches on PostgreSQL) ...", flush=True)
        heading, section = meta_section(machine)
        measured[heading] = section
    else:
        # The figures measured on PostgreSQL stay in RESULTS.md rather than a "needs" line.
        print("metagame pages: needs a PostgreSQL DATABASE_URL; skipped", flush=True)
    if args.live_tournament:
        print("live Swiss of people: bench/live_tournament.py ...", flush=True)
        measured[LIVE_TOURNAMENT] = live_tournament_section(machine)
    if args.lab:
        print("deck lab: bench/lab.py ...", flush=True)
        section = lab_section()
        if section:
            measured["Deck lab"] = section
    existing = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else ""
    RESULTS.write_text(merge(existing, measured), encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 1 if any("error" in row for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
