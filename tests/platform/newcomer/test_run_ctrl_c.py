"""Ctrl-C on ``make run`` stops web, worker and beat cleanly.

Runs the Makefile's ``serve`` target (the same honcho command ``make run`` ends with) on a
temporary var folder and a free port, in its own process group like a terminal's
foreground job, waits until the three processes are up, then sends SIGINT to the whole
group as a terminal's Ctrl-C does.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_ctrl_c_on_make_serve_stops_every_process_cleanly(tmp_path):
    procfile = tmp_path / "Procfile"
    procfile.write_text((ROOT / "Procfile").read_text())
    env = {
        k: v for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "REQUIRE_SERVICES"}
    }
    env.update(VAR_DIR=str(tmp_path / "var"), DJANGO_DEBUG="1", PYTHONUNBUFFERED="1", WEB_PORT=str(_free_port()))
    subprocess.run([str(ROOT / ".venv/bin/python"), "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env,
                   check=True, capture_output=True)
    log_path = tmp_path / "make.log"
    with open(log_path, "wb") as log:
        make = subprocess.Popen(["make", "--no-print-directory", "serve", f"PROCFILE={procfile}"], cwd=ROOT, env=env,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            text = log_path.read_text(errors="replace")
            if "ready." in text and "Uvicorn running" in text and "beat: Starting" in text:
                break
            assert make.poll() is None, text
            time.sleep(0.5)
        else:
            pytest.fail(f"the processes did not start:\n{log_path.read_text(errors='replace')}")
        time.sleep(1)
        os.killpg(make.pid, signal.SIGINT)  # the terminal's Ctrl-C reaches the whole foreground group
        returncode = make.wait(timeout=120)
    finally:
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGKILL)
    out = log_path.read_text(errors="replace")
    # make itself is interrupted by the same Ctrl-C and ends by it, as a shell expects; it
    # reports no error of its recipe.
    assert returncode in (0, -signal.SIGINT), out
    assert "Error 130" not in out and "make: ***" not in out, out
    assert "stopped: web, workers and beat" in out
    assert "SIGKILL" not in out, out
    assert not re.search(r"\bERROR\b|Traceback", out), out
    assert "restarting" not in out, "a stop signal is not a crash: nothing is started again"
    for name in ("web.1", "worker.1", "live.1", "periodic.1", "beat.1"):
        assert re.search(rf"{re.escape(name)} stopped \(rc=(0|-15)\)", out), out
