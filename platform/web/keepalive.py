"""Keep one process of the ``make run`` stack running: restart it when it dies.

``make run`` starts web, the workers and beat under honcho (the ``Procfile``). Honcho
stops every process as soon as one of them exits, so a worker that died (a crash, the
out-of-memory killer, a broker error) used to take the web site down with it. Each
Procfile line therefore runs its command under this supervisor::

    python -m web.keepalive -- celery -A config worker --pool solo

- When the command exits on its own, whatever the status, it is started again after a
  pause that doubles from 1 s up to 30 s while it keeps dying quickly, and goes back to
  1 s once it has stayed up for a minute. Every exit and restart is logged to stderr,
  which honcho prints with the process's name.
- SIGTERM or SIGINT (honcho's Ctrl-C, ``kill``) is passed on to the command once, and the
  supervisor then exits with the command's status instead of restarting it.
- The command runs in its own process group, so honcho's signal to the supervisor's group
  is not delivered twice; if the supervisor itself is killed outright, Linux kills the
  command too (``PR_SET_PDEATHSIG``), so nothing is left running. The supervisor asks
  the same of its own parent (the Procfile lines ``exec`` it, so that parent is honcho):
  when honcho is killed outright, the supervisor is told to stop as by SIGTERM.

In docker-compose each service's ``restart: unless-stopped`` does this job instead; in
production use your process manager's restart policy (systemd ``Restart=always``).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import subprocess
import sys
import time

MIN_PAUSE = 1.0
MAX_PAUSE = 30.0
#: A run at least this long counts as healthy: the next restart pauses MIN_PAUSE again.
HEALTHY_SECONDS = 60.0
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def _stop_with_parent() -> None:
    """Ask Linux for SIGTERM when this process's parent dies (honcho killed outright)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def say(message: str) -> None:
    print(f"keepalive: {message}", file=sys.stderr, flush=True)


def run(command: list[str], *, min_pause: float = MIN_PAUSE, max_pause: float = MAX_PAUSE,
        healthy_seconds: float = HEALTHY_SECONDS, max_restarts: int | None = None) -> int:
    """Run ``command`` until a stop signal arrives, restarting it whenever it exits.

    Returns the command's last exit status (0 when it was stopped by a signal and exited
    cleanly). ``max_restarts`` bounds the restarts (tests); ``None`` means no bound.
    """
    stopping: list[int] = []
    child: subprocess.Popen | None = None

    def on_signal(signum, _frame):
        if not stopping:
            stopping.append(signum)
            if child is not None and child.poll() is None:
                child.send_signal(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    parent = os.getppid()
    _stop_with_parent()
    if os.getppid() != parent:  # the parent died before the request took effect
        return 0

    name = os.path.basename(command[0])
    pause = min_pause
    restarts = 0
    while True:
        started = time.monotonic()
        try:
            child = subprocess.Popen(command, process_group=0, preexec_fn=_die_with_parent)
        except OSError as exc:
            say(f"cannot start {name}: {exc}")
            return 127
        if stopping:  # a signal that came while the child was being started
            child.send_signal(stopping[0])
        status = child.wait()
        if stopping:
            return 0 if status in (0, -signal.SIGTERM, -signal.SIGINT) else status
        lived = time.monotonic() - started
        pause = min_pause if lived >= healthy_seconds else pause
        how = f"signal {-status}" if status < 0 else f"status {status}"
        if max_restarts is not None and restarts >= max_restarts:
            say(f"{name} (pid {child.pid}) exited with {how} after {lived:.1f} s; not restarted "
                f"({restarts} restarts)")
            return status
        say(f"{name} (pid {child.pid}) exited with {how} after {lived:.1f} s; restarting in {pause:g} s")
        deadline = time.monotonic() + pause
        while not stopping and time.monotonic() < deadline:
            time.sleep(min(0.1, pause))
        if stopping:
            return 0
        restarts += 1
        pause = min(max_pause, pause * 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m web.keepalive",
                                     description="Run a command and restart it whenever it exits.")
    parser.add_argument("--max-restarts", type=int, default=None, help="give up after this many restarts")
    parser.add_argument("--min-pause", type=float, default=MIN_PAUSE, help="first pause before a restart, s")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command and its arguments")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given: python -m web.keepalive -- COMMAND [ARGS...]")
    return run(command, min_pause=args.min_pause, max_restarts=args.max_restarts)


if __name__ == "__main__":
    sys.exit(main())
