"""``python -m web.serve``: the site in several uvicorn processes, each on its own socket.

uvicorn's own ``--workers`` shares one listening socket, and the process that wakes first
accepts every connection waiting: when a round of a live event opened 256 boards at once,
one process took three quarters of them. Here each process listens on a socket of its own
(``SO_REUSEPORT``) and the kernel spreads the connections; a process that dies stops the
others, so the supervisor around it (``web.keepalive``, docker-compose) restarts them all.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """``python -m web.serve`` with ``args``, its output in ``log_dir``."""

    def __init__(self, args: list[str], env: dict[str, str], log_dir: Path) -> None:
        self.port = free_port()
        self.log_path = log_dir / "web-serve.log"
        root = Path(__file__).resolve().parents[2]
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "web.serve", "config.asgi:application", "--host", "127.0.0.1", "--port",
                 str(self.port), "--lifespan", "off", *args], cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)

    def answers(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=5) as response:
                return response.status == 200
        except OSError:
            return False

    def wait_healthy(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"web.serve did not answer on /healthz:\n{self.log_path.read_text()[-3000:]}")
            time.sleep(0.2)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def listening_inodes(port: int) -> set[str]:
    """Socket inodes listening on 127.0.0.1:``port`` (Linux's /proc/net/tcp)."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, state, inode = fields[1], fields[3], fields[9]
        if state == "0A" and int(local.split(":")[1], 16) == port:
            inodes.add(inode)
    return inodes


def sockets_of(pid: int) -> set[str]:
    out = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            out.add(target[8:-1])
    return out


def connections_by_process(port: int, pids: list[int], count: int) -> Counter:
    """Open ``count`` connections at once and say which process accepted each (the
    process holding the accepted socket's inode)."""
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]
    try:
        time.sleep(1.0)
        ports = {c.getsockname()[1] for c in clients}
        accepted = set()
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            local, remote = fields[1], fields[2]
            if int(local.split(":")[1], 16) == port and int(remote.split(":")[1], 16) in ports:
                accepted.add(fields[9])
        held = Counter()
        for pid in pids:
            held[pid] = len(sockets_of(pid) & accepted)
        return held
    finally:
        for client in clients:
            client.close()


@pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT") or not Path("/proc/net/tcp").exists(),
                    reason="SO_REUSEPORT and /proc are Linux's")
def test_two_processes_each_listen_on_their_own_socket_and_share_a_burst_of_connections(tmp_path, service_env):
    server = Server(["--workers", "2"], service_env(), tmp_path)
    try:
        server.wait_healthy()
        port = server.port
        pids = children_of(server.process.pid)
        assert len(pids) == 2, pids
        listening = listening_inodes(port)
        # Each process holds a listening socket of its own on the one address.
        owners = [sockets_of(pid) & listening for pid in pids]
        assert all(len(mine) == 1 for mine in owners) and owners[0] != owners[1], owners
        # A burst of connections is spread between them (each takes a fair share).
        held = connections_by_process(port, pids, 200)
        assert sum(held.values()) == 200, held
        assert min(held.values()) >= 50, held
        for _ in range(10):
            assert server.answers()

        # One process dying stops the other, and the command exits for its supervisor to restart it.
        os.kill(pids[0], signal.SIGKILL)
        server.process.wait(timeout=40)
        assert server.process.returncode != 0
        time.sleep(0.5)
        assert all(not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
                   for pid in pids)
    finally:
        server.stop()


def test_one_process_is_uvicorn_itself_and_stops_on_sigterm(tmp_path, service_env):
    server = Server(["--timeout-graceful-shutdown", "2"], service_env(), tmp_path)
    try:
        server.wait_healthy()
        assert children_of(server.process.pid) == []  # no supervisor: uvicorn in this process
        server.process.send_signal(signal.SIGTERM)
        # uvicorn shuts down, then ends by the signal it was sent.
        assert server.process.wait(timeout=20) in (0, -signal.SIGTERM)
        assert not server.answers()
    finally:
        server.stop()


def test_the_procfile_and_compose_serve_through_web_serve():
    root = Path(__file__).resolve().parents[2]
    assert "python -m web.serve config.asgi:application" in (root / "Procfile").read_text()
    compose = (root / "docker-compose.yml").read_text()
    assert '"web.serve", "config.asgi:application"' in compose and '"--workers", "2"' in compose
    assert subprocess.run([sys.executable, "-m", "web.serve", "--help"], capture_output=True, text=True,
                          cwd=root, env={**os.environ, "PYTHONPATH": str(root / "platform")}).returncode == 0
