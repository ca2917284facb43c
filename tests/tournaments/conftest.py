"""Fixtures of the tournaments tests: an organiser, and tasks recorded instead of sent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest


@pytest.fixture
def organiser(db):
    from tournament_helpers import make_player

    return make_player("orga")


@dataclass
class Sent:
    """The tasks of one id the services sent, as (name, id), from a recording of ``web.effects``."""

    record: Any

    @property
    def calls(self) -> list[tuple[str, int]]:
        return [(name, args[0]) for name, args, _, _ in self.record.tasks if len(args) == 1]

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]


@pytest.fixture
def sent(effects_recorded) -> Sent:
    """Record, instead of sending, what the services send on commit."""
    return Sent(effects_recorded)


class Process:
    """A worker or beat subprocess on this run's database and broker, with its log."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], log_dir):
        import subprocess
        import sys
        from pathlib import Path

        self.name = name
        self.log_path = Path(log_dir) / f"{name}.log"
        root = Path(__file__).resolve().parents[2]
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", *args], cwd=root,
                                            env=env, stdout=log, stderr=subprocess.STDOUT)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace") if self.log_path.exists() else ""

    def wait_for(self, text: str, timeout: float = 60.0) -> None:
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log():
                return
            if self.process.poll() is not None:
                pytest.fail(f"{self.name} exited ({self.process.returncode}):\n{self.log()[-4000:]}")
            time.sleep(0.2)
        pytest.fail(f"{self.name}: no '{text}' within {timeout:g} s:\n{self.log()[-4000:]}")

    def stop(self) -> None:
        import subprocess

        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


@pytest.fixture
def spawn(service_env, tmp_path):
    """``spawn(name, queues, **env)``: start another worker; ``spawn.beat(**env)``: beat."""
    import uuid

    started: list[Process] = []

    def worker(name: str, queues: str = "periodic,tournaments,matches,ladder,default", **extra_env: str) -> Process:
        hostname = f"{name}-{uuid.uuid4().hex[:6]}@test"
        process = Process(name, ["worker", "--pool", "solo", "--hostname", hostname, "--queues", queues,
                                 "--loglevel", "info", "--without-mingle", "--without-gossip"],
                          service_env(**extra_env), tmp_path)
        process.hostname = hostname
        started.append(process)
        process.wait_for(f"{hostname} ready.")
        return process

    def beat(**extra_env: str) -> Process:
        process = Process("beat", ["beat", "--loglevel", "info", "--schedule", str(tmp_path / "beat-schedule")],
                          service_env(**extra_env), tmp_path)
        started.append(process)
        return process

    worker.beat = beat
    yield worker
    for process in reversed(started):
        process.stop()
