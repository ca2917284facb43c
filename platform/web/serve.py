"""Serve the site with uvicorn in one or more processes, each listening on its own socket.

    python -m web.serve config.asgi:application --host 0.0.0.0 --port 8000 --workers 2 [uvicorn options]

With one process (the default) this is uvicorn itself. With ``--workers N``, uvicorn's own
multi-process mode shares one listening socket between its processes, and each process's
event loop accepts every connection waiting when it wakes (up to the listen backlog, 2048):
when a live event's round starts and hundreds of players open their boards within a
second, one process took most of them and the other idled (measured: 73% and 27% of the
boards' CPU; bench/RESULTS.md, "Live Swiss of people"). Here each of the N processes binds
its own socket to the same address with ``SO_REUSEPORT``, and the kernel spreads new
connections evenly between them. A process that exits stops the others, and this command
then exits with its status (``web.keepalive``, docker-compose's restart policy or the
process manager starts it again). SIGINT and SIGTERM are passed to every process.

Every other option is uvicorn's own, parsed by uvicorn's command line. Without
``SO_REUSEPORT`` (not Linux or BSD), ``--workers`` is handed to uvicorn as it is.
"""

from __future__ import annotations

import inspect
import os
import signal
import socket
import subprocess
import sys
import time

CHILD = "--reuse-port-child"


def _split_workers(argv: list[str]) -> tuple[int, list[str]]:
    """The ``--workers`` count (1 when absent) and the other arguments."""
    workers, rest, index = 1, [], 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--workers" and index + 1 < len(argv):
            workers, index = int(argv[index + 1]), index + 2
            continue
        if arg.startswith("--workers="):
            workers = int(arg.split("=", 1)[1])
        else:
            rest.append(arg)
        index += 1
    return workers, rest


def _uvicorn(argv: list[str]) -> int:
    # uvicorn loads only in a process that serves: the supervisor of N processes never does.
    from uvicorn.main import main as uvicorn_main

    return uvicorn_main.main(args=argv, prog_name="uvicorn", standalone_mode=True)


def _child(argv: list[str]) -> None:
    """One process: uvicorn's options, served on a socket of its own bound with SO_REUSEPORT."""
    import uvicorn  # as in _uvicorn: only a process that serves loads it
    from uvicorn.main import main as uvicorn_main

    context = uvicorn_main.make_context("uvicorn", list(argv))
    params = dict(context.params)
    accepted = set(inspect.signature(uvicorn.Config.__init__).parameters) - {"self"}
    app_dir = params.pop("app_dir", None)
    if app_dir is not None:
        sys.path.insert(0, app_dir)
    config = uvicorn.Config(**{name: value for name, value in params.items() if name in accepted})
    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((config.host, config.port))
    sock.set_inheritable(True)
    uvicorn.Server(config).run(sockets=[sock])


def _supervise(workers: int, argv: list[str]) -> int:
    children = [subprocess.Popen([sys.executable, "-m", "web.serve", CHILD, *argv]) for _ in range(workers)]
    stopping = False

    def stop(signum, _frame) -> None:
        nonlocal stopping
        stopping = True
        for child in children:
            if child.poll() is None:
                child.send_signal(signum)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    status = 0
    while True:
        ended = [child for child in children if child.poll() is not None]
        if ended:
            status = ended[0].returncode
            if not stopping:
                print(f"web.serve: process {ended[0].pid} exited with status {status}; stopping the others",
                      file=sys.stderr, flush=True)
                stop(signal.SIGTERM, None)
            for child in children:
                try:
                    child.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()
            return status if status >= 0 else 128 - status
        time.sleep(0.2)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == [CHILD]:
        _child(argv[1:])
        return 0
    workers, rest = _split_workers(argv)
    if workers <= 1:
        return _uvicorn(rest)
    if not hasattr(socket, "SO_REUSEPORT"):
        return _uvicorn([*rest, "--workers", str(workers)])
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    return _supervise(workers, rest)


if __name__ == "__main__":
    sys.exit(main())
