"""A fresh clone with DATABASE_URL and REDIS_URL set starts every process (issue 11).

``var/`` was created only on the embedded paths (SQLite, the filesystem broker); with
PostgreSQL and Redis nothing created it and ``celery beat`` crashed opening its schedule
file there. The settings now create ``VAR_DIR`` whichever process starts first.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.redis
def test_celery_beat_starts_on_a_fresh_clone_with_database_and_redis_set(tmp_path):
    var = tmp_path / "fresh-clone" / "var"
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
        VAR_DIR=str(var),
        # Beat does not open the database; a PostgreSQL URL is what matters for the settings.
        DATABASE_URL="postgres://nobody:nothing@127.0.0.1:1/fresh",
        REDIS_URL=os.environ["REDIS_URL"],
        # Nothing falls due while the test watches: beat sends no task to the broker.
        HEARTBEAT_SECONDS="3600", MATCHES_SWEEP_SECONDS="3600", LADDER_TICK_SECONDS="3600",
        LIVE_TICK_SECONDS="3600", PYTHONUNBUFFERED="1",
    )
    log_path = tmp_path / "beat.log"
    with open(log_path, "wb") as log:
        beat = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel", "debug"],
                                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        # Beat logs "Waking up" after its first pass over the schedule, which it opened
        # (or crashed opening) just before: the line proves beat got past the schedule file.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and beat.poll() is None:
            if "beat: Waking up" in log_path.read_text(errors="replace"):
                break
            time.sleep(0.2)
        assert "beat: Waking up" in log_path.read_text(errors="replace"), log_path.read_text(errors="replace")[-3000:]
        assert beat.poll() is None, f"beat exited ({beat.returncode}):\n{log_path.read_text(errors='replace')[-3000:]}"
        assert any(var.glob("celerybeat-schedule*")), log_path.read_text(errors="replace")[-3000:]
    finally:
        beat.terminate()
        beat.wait(timeout=15)
