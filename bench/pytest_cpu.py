"""A pytest plugin that writes each test's machine CPU and wall time to a file.

For each test it reads the busy time of the whole machine from ``/proc/stat`` before the
test's setup and after its teardown, so the CPU of the servers, workers and browsers a test
starts is counted with it. That only means something in a serial run on a quiet machine::

    PYTHONPATH=bench CPU_PER_TEST=/tmp/cpu.tsv .venv/bin/python -m pytest -n 0 -p pytest_cpu

Each line of the file: the test's id, its wall seconds, its CPU seconds (tab-separated).
A module's or session's fixtures count towards the first test that uses them. Linux only.
"""

from __future__ import annotations

import os
import time

_TICKS = os.sysconf("SC_CLK_TCK")
_started: dict[str, tuple[int, float]] = {}
_out = None


def _busy_ticks() -> int:
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    return sum(fields) - fields[3] - fields[4]  # all but idle and iowait


def pytest_configure(config) -> None:
    global _out
    _out = open(os.environ.get("CPU_PER_TEST", "cpu-per-test.tsv"), "w")


def pytest_unconfigure(config) -> None:
    if _out is not None:
        _out.close()


def pytest_runtest_logstart(nodeid, location) -> None:
    _started[nodeid] = (_busy_ticks(), time.monotonic())


def pytest_runtest_logfinish(nodeid, location) -> None:
    ticks, began = _started.pop(nodeid)
    _out.write(f"{nodeid}\t{time.monotonic() - began:.2f}\t{(_busy_ticks() - ticks) / _TICKS:.2f}\n")
    _out.flush()
