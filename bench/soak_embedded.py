"""Soak test of the embedded stack: ``make run``'s Procfile, for as long as you ask.

Starts web, worker, live worker, periodic worker and beat exactly as ``make run`` does
(honcho, the project's ``Procfile``, every process under ``web.keepalive``) on the
embedded defaults (SQLite, the filesystem broker, the SQLite channel bus) in a fresh
``VAR_DIR``, with beat's heartbeat every second, and keeps a stream of bot matches
(both games, the starter decks and their greedy pilots) queued for the whole run. Every
few seconds it asks ``/healthz``. Optionally it kills the match worker with SIGKILL
once, to show that the others stay up and the worker comes back.

At the end it prints one JSON summary and exits non-zero when anything went wrong:
the stack exited, ``/healthz`` failed, a process exited that nobody killed, a message
could not be read, or matches stopped finishing.

    python bench/soak_embedded.py --minutes 30                 # the measurement
    python bench/soak_embedded.py --seconds 45 --kill-worker-at 15    # the suite's short form
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
IN_FLIGHT = 2
#: Lines in the stack's output that mean a process met an error it could not recover from.
FATAL = re.compile(r"Unrecoverable error|JSONDecodeError|Traceback \(most recent call last\)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stack_env(var_dir: Path, port: int) -> dict[str, str]:
    """The embedded defaults: no DATABASE_URL or REDIS_URL, a fresh VAR_DIR."""
    env = {k: v for k, v in os.environ.items()
           if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "TEST_RUN_ID", "REQUIRE_SERVICES"}}
    env.update(
        VAR_DIR=str(var_dir), WEB_PORT=str(port), HEARTBEAT_SECONDS="1", PYTHONUNBUFFERED="1",
        PATH=f"{Path(PYTHON).parent}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    return env


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


FEEDER = """
import json, sys, time
import django
django.setup()
from decks.selectors import starter_decks
from matches.models import Match
from matches.services import match_challenge

in_flight, seconds = int(sys.argv[1]), float(sys.argv[2])
pairs = {g: [d.latest_version for d in starter_decks(game=g).order_by("name")[:2]] for g in ("tempofront", "conquest")}
games = ["tempofront", "conquest"]
start, created, seed = time.monotonic(), [], 9000
while time.monotonic() - start < seconds:
    open_ = Match.objects.filter(pk__in=created, status__in=["queued", "running"]).count()
    while open_ < in_flight:
        game = games[len(created) % 2]
        seed += 1
        created.append(match_challenge(created_by=None, deck_versions=pairs[game], best_of=1, seed=seed).pk)
        open_ += 1
    time.sleep(1)
print(json.dumps({"created": created}), flush=True)
"""

REPORT = """
import json, sys
import django
django.setup()
from django.db.models import Count
from matches.models import Match
ids = json.loads(sys.argv[1])
rows = dict(Match.objects.filter(pk__in=ids).values_list("status").annotate(n=Count("pk")))
print(json.dumps(rows))
"""


def health(port: int) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")
    except (OSError, ValueError) as exc:
        return 0, {"error": str(exc)}


def worker_pid(stack_pid: int) -> int | None:
    """The pid of the match worker's celery process (the Procfile's ``worker`` line)."""
    out = subprocess.run(["ps", "-ww", "-eo", "pid=,ppid=,args="], capture_output=True, text=True).stdout
    parents: dict[int, int] = {}
    candidates = []
    for line in out.splitlines():
        pid, ppid, args = line.split(None, 2) if len(line.split(None, 2)) == 3 else (*line.split(None, 1), "")
        parents[int(pid)] = int(ppid)
        if "celery -A config worker --pool solo --loglevel" in args and "web.keepalive" not in args:
            candidates.append(int(pid))
    for pid in candidates:  # only this stack's worker, not another stack's on the same machine
        ancestor = pid
        while ancestor in parents and ancestor != stack_pid:
            ancestor = parents[ancestor]
        if ancestor == stack_pid:
            return pid
    return None


def start_stack(env: dict[str, str], log) -> subprocess.Popen:
    """web, worker, live, periodic and beat as ``make serve`` starts them (honcho, the Procfile)."""
    serve = ["-c", "import sys, honcho.manager as m; from honcho.command import main; m.KILL_WAIT = 60.0; "
             "sys.argv[0] = 'honcho'; main()", "start", "-f", str(ROOT / "Procfile"), "-d", str(ROOT)]
    return subprocess.Popen([PYTHON, *serve], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop_stack(stack: subprocess.Popen) -> None:
    """Ctrl-C, as a person stops ``make run``; SIGKILL if it has not stopped in 90 s."""
    if stack.poll() is None:
        os.killpg(stack.pid, signal.SIGINT)
        try:
            stack.wait(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(stack.pid, signal.SIGKILL)
            stack.wait()


def wait_healthy(stack: subprocess.Popen, port: int, log_path: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while health(port)[0] != 200:
        if stack.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the stack did not come up; see {log_path}")
        time.sleep(1)


def soak(seconds: float, kill_worker_at: float | None, log_path: Path) -> dict:
    var_dir = Path(tempfile.mkdtemp(prefix="soak-var-"))
    port = free_port()
    env = stack_env(var_dir, port)
    manage(env, "migrate", "--noinput")
    manage(env, "load_demo", "--allow-production")
    log = open(log_path, "w")
    stack = start_stack(env, log)
    summary: dict = {"seconds": seconds, "port": port, "var_dir": str(var_dir), "health_checks": 0,
                     "health_failures": [], "killed_worker": None, "stack_exited": None,
                     "kill_requested": kill_worker_at is not None}
    started = time.monotonic()
    try:
        wait_healthy(stack, port, log_path)
        summary["startup_seconds"] = round(time.monotonic() - started, 1)
        feeder = subprocess.Popen([PYTHON, "-c", FEEDER, str(IN_FLIGHT), str(seconds)], cwd=ROOT, env=env,
                                  stdout=subprocess.PIPE, text=True)
        soak_start = time.monotonic()
        last_heartbeat_age = []
        while time.monotonic() - soak_start < seconds:
            if stack.poll() is not None:
                summary["stack_exited"] = stack.returncode
                break
            if kill_worker_at is not None and summary["killed_worker"] is None \
                    and time.monotonic() - soak_start >= kill_worker_at:
                pid = worker_pid(stack.pid)
                if pid:
                    os.kill(pid, signal.SIGKILL)
                    summary["killed_worker"] = {"pid": pid, "at": round(time.monotonic() - soak_start, 1)}
            status, body = health(port)
            summary["health_checks"] += 1
            if status != 200:
                summary["health_failures"].append({"at": round(time.monotonic() - soak_start, 1),
                                                   "status": status, "body": body})
            else:
                age = (body.get("heartbeat") or {}).get("age_seconds")
                if age is not None:
                    last_heartbeat_age.append(age)
            time.sleep(5)
        out, _ = feeder.communicate(timeout=120)
        created = json.loads(out.strip().splitlines()[-1])["created"] if out.strip() else []
        # The matches still in flight get a little time to finish before the count: until
        # none is queued or running, at most a quarter of the run (30 s at most).
        settle_until = time.monotonic() + min(30.0, seconds / 4)
        while True:
            statuses = json.loads(subprocess.run([PYTHON, "-c", REPORT, json.dumps(created)], cwd=ROOT, env=env,
                                                 capture_output=True, text=True, check=True).stdout.strip())
            if not (statuses.get("queued") or statuses.get("running")) or time.monotonic() > settle_until:
                break
            time.sleep(2)
        summary["matches"] = {"created": len(created), **statuses}
        summary["max_heartbeat_age_seconds"] = max(last_heartbeat_age) if last_heartbeat_age else None
    finally:
        stop_stack(stack)
        log.close()
    text = log_path.read_text(errors="replace")
    restarts = re.findall(r"keepalive: (\S+) \(pid (\d+)\) exited with ([^;]+);", text)
    killed = summary["killed_worker"]["pid"] if summary["killed_worker"] else None
    summary["unexpected_exits"] = [" ".join(r) for r in restarts if int(r[1]) != killed]
    summary["restarts_after_kill"] = [" ".join(r) for r in restarts if int(r[1]) == killed]
    summary["fatal_lines"] = [line for line in text.splitlines() if FATAL.search(line)][:20]
    summary["rejected_messages"] = len(list((var_dir / "broker" / "rejected").glob("*")))
    summary["elapsed_seconds"] = round(time.monotonic() - started, 1)
    return summary


def verdict(summary: dict) -> list[str]:
    problems = []
    if summary["stack_exited"] is not None:
        problems.append(f"the stack exited with {summary['stack_exited']}")
    if summary["health_failures"]:
        problems.append(f"{len(summary['health_failures'])} /healthz failures")
    if summary["unexpected_exits"]:
        problems.append(f"processes exited: {summary['unexpected_exits']}")
    if summary["fatal_lines"]:
        problems.append(f"fatal lines in the log: {summary['fatal_lines'][:3]}")
    if summary["rejected_messages"]:
        problems.append(f"{summary['rejected_messages']} broker messages could not be read")
    if summary.get("kill_requested") and not summary["killed_worker"]:
        problems.append("the match worker to kill was not found")
    if summary["killed_worker"] and not summary["restarts_after_kill"]:
        problems.append("the killed worker was not restarted")
    age = summary.get("max_heartbeat_age_seconds")
    if age is None or age > 30:
        problems.append(f"beat's heartbeat was {age} s old at worst (the periodic worker or beat stalled)")
    matches = summary.get("matches", {})
    if matches.get("failed"):
        problems.append(f"{matches['failed']} matches failed")
    if matches.get("done", 0) < max(1, matches.get("created", 0) - 2 * IN_FLIGHT):
        problems.append(f"only {matches.get('completed', 0)} of {matches.get('created', 0)} matches completed")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=None)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--kill-worker-at", type=float, default=None,
                        help="SIGKILL the match worker this many seconds into the run")
    parser.add_argument("--log", type=Path, default=Path(tempfile.gettempdir()) / "soak-embedded.log")
    args = parser.parse_args(argv)
    seconds = args.seconds if args.seconds is not None else 60 * (args.minutes or 30)
    summary = soak(seconds, args.kill_worker_at, args.log)
    summary["problems"] = verdict(summary)
    print(json.dumps(summary, indent=2))
    return 1 if summary["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
