"""The embedded stack stays up: ``make run``'s Procfile on SQLite and the filesystem broker,
beat's heartbeat every second and a stream of bot matches, with the match worker killed
once on purpose (bench/soak_embedded.py; its 30-minute run is in bench/RESULTS.md).

Before web/broker.py the periodic worker died with ``JSONDecodeError`` in kombu's
filesystem transport after 10-17 minutes, and honcho then stopped everything; this short
form kills a worker, which then also stopped everything.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_embedded_stack_survives_a_stream_of_matches_and_a_killed_worker(tmp_path):
    log = tmp_path / "stack.log"
    result = subprocess.run(
        [sys.executable, "bench/soak_embedded.py", "--seconds", "45", "--kill-worker-at", "15", "--log", str(log)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert result.stdout.strip(), result.stderr[-4000:]
    summary = json.loads(result.stdout[result.stdout.index("{"):])
    assert summary["problems"] == [], json.dumps(summary, indent=2) + "\n" + log.read_text()[-4000:]
    assert summary["stack_exited"] is None
    assert summary["health_failures"] == []
    assert summary["restarts_after_kill"], "the killed worker came back"
    assert summary["matches"]["done"] >= 10
    assert result.returncode == 0
