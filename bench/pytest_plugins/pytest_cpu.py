"""A pytest plugin that writes each test's CPU and wall time to a file.

By default it charges each test with the CPU of its own process tree: the pytest process
that runs it and every process started under it (the servers, workers, browsers and
scripts a test starts), sampled from ``/proc`` every 0.2 s by a thread and charged to the
test running at the time. A process stays in the tree once seen there, even after its
parent has gone. That works in a parallel run, where each pytest-xdist process writes its
own file::

    PYTHONPATH=bench/pytest_plugins CPU_PER_TEST=/tmp/cpu.tsv .venv/bin/python -m pytest -n 3 -p pytest_cpu

(``/tmp/cpu.tsv.gw0``, ``.gw1``, ... one per process). Put only this folder on
``PYTHONPATH``: ``bench/`` itself holds a ``lab.py`` that would hide the site's ``lab``
app from the servers the tests start. What the tree leaves out is the work done for a test
by the machine's own services (PostgreSQL, Redis) and processes living under 0.2 s.
``CPU_PER_TEST_MODE=machine`` charges each test with the busy time of the whole machine
instead (``/proc/stat``), which only means something in a serial run (``-n 0``) on a quiet
machine.

Each line of a file: the test's id, its wall seconds, its CPU seconds (tab-separated). A
module's or session's fixtures count towards the tests that run while they work (a
session's Celery worker or browser is started by the first test that needs it); what runs
between two tests is charged to neither. Linux only.
"""

from __future__ import annotations

import os
import threading
import time

_TICKS = os.sysconf("SC_CLK_TCK")
_INTERVAL = 0.2
_out = None
_lock = threading.Lock()
_started: dict[str, float] = {}


def _machine_ticks() -> int:
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    return sum(fields) - fields[3] - fields[4]  # all but idle and iowait


class _Tree:
    """The CPU ticks of this process and every process seen under it since the start."""

    def __init__(self) -> None:
        self.root = os.getpid()
        self.members: set[tuple[int, int]] = set()  # (pid, start time): pids are reused
        self.last: dict[tuple[int, int], int] = {}
        self.sample(charge=False)

    def sample(self, *, charge: bool = True) -> int:
        """Ticks used by the tree's processes since the last sample."""
        parent_of: dict[int, int] = {}
        key_of: dict[int, tuple[int, int]] = {}
        ticks: dict[tuple[int, int], int] = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat") as stat:
                    text = stat.read()
            except OSError:
                continue
            fields = text[text.rfind(")") + 2:].split()
            pid = int(name)
            key = (pid, int(fields[19]))
            parent_of[pid], key_of[pid] = int(fields[1]), key
            ticks[key] = int(fields[11]) + int(fields[12])  # utime, stime (this process's own)
        for pid, key in key_of.items():
            if key in self.members:
                continue
            walk, depth = pid, 0
            while walk and walk != self.root and key_of.get(walk) not in self.members and depth < 64:
                walk, depth = parent_of.get(walk, 0), depth + 1
            if walk == self.root or key_of.get(walk) in self.members:
                self.members.add(key)
                # A process started since the last sample counts from zero; one already
                # running when the plugin started counts from then.
                self.last.setdefault(key, ticks[key] if not charge else 0)
        used = 0
        for key in self.members & ticks.keys():
            used += ticks[key] - self.last.get(key, 0)
            self.last[key] = ticks[key]
        for key in self.members - ticks.keys():  # gone: forget it
            self.members.discard(key)
            self.last.pop(key, None)
        return used


_tree: _Tree | None = None
_running: str | None = None
_charged = 0  # ticks charged to the running test (tree mode) or the machine's at its start


def _charge() -> None:
    """Sample the tree and charge what it used since the last sample to the running test."""
    global _charged
    with _lock:
        used = _tree.sample()
        if _running is not None:
            _charged += used


def _sampler() -> None:
    while True:
        time.sleep(_INTERVAL)
        _charge()


def _tree_mode() -> bool:
    return os.environ.get("CPU_PER_TEST_MODE", "tree") == "tree"


def pytest_configure(config) -> None:
    global _out, _tree
    path = os.environ.get("CPU_PER_TEST", "cpu-per-test.tsv")
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    _out = open(f"{path}.{worker}" if worker else path, "w")
    if _tree_mode() and _tree is None:
        _tree = _Tree()
        threading.Thread(target=_sampler, name="pytest-cpu", daemon=True).start()


def pytest_unconfigure(config) -> None:
    if _out is not None:
        _out.close()


def pytest_runtest_logstart(nodeid, location) -> None:
    global _running, _charged
    if _tree_mode():
        _charge()  # what ran before this test is not its own
        with _lock:
            _running, _charged = nodeid, 0
    else:
        _running, _charged = nodeid, _machine_ticks()
    _started[nodeid] = time.monotonic()


def pytest_runtest_logfinish(nodeid, location) -> None:
    global _running
    wall = time.monotonic() - _started.pop(nodeid)
    if _tree_mode():
        _charge()
        with _lock:
            ticks, _running = _charged, None
    else:
        ticks, _running = _machine_ticks() - _charged, None
    _out.write(f"{nodeid}\t{wall:.2f}\t{ticks / _TICKS:.2f}\n")
    _out.flush()
