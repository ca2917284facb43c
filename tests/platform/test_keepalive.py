"""``web.keepalive``: a process of the ``make run`` stack that dies is started again, and a
stop signal stops it for good (honcho stops every process as soon as one exits, so without
this one crashed worker took the web site down)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def keepalive(*args: str, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)])}
    return subprocess.Popen([sys.executable, "-m", "web.keepalive", *args], cwd=ROOT, env=env,
                            stderr=subprocess.PIPE, text=True, **kwargs)


def wait_for(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_command_that_dies_is_started_again_and_each_exit_is_logged(tmp_path):
    runs = tmp_path / "runs"
    script = f"open({str(runs)!r}, 'a').write('x'); raise SystemExit(3)"
    proc = keepalive("--max-restarts", "2", "--min-pause", "0.05", "--", sys.executable, "-c", script)
    _, err = proc.communicate(timeout=60)
    assert runs.read_text() == "xxx", "started once and restarted twice"
    assert err.count("exited with status 3") == 3
    assert err.count("restarting in") == 2
    assert "not restarted (2 restarts)" in err
    assert proc.returncode == 3


def test_sigterm_stops_the_command_once_and_does_not_restart_it(tmp_path):
    marker = tmp_path / "terms"
    started = tmp_path / "started"
    script = (
        "import signal, sys, time\n"
        f"signal.signal(signal.SIGTERM, lambda *a: (open({str(marker)!r}, 'a').write('t'), sys.exit(0)))\n"
        f"open({str(started)!r}, 'a').write('s')\n"
        "time.sleep(60)\n"
    )
    proc = keepalive("--min-pause", "0.05", "--", sys.executable, "-c", script)
    # The child says "started" once its handler is in place: the signal cannot come first.
    wait_for(lambda: started.exists())
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert marker.read_text() == "t", "the command got exactly one SIGTERM"
    assert started.read_text() == "s", "and was not started again"
    assert "restarting" not in err


def test_honchos_signal_to_the_process_group_reaches_the_command_once(tmp_path):
    """Honcho signals each process's group (os.killpg): the command still sees one SIGTERM."""
    marker = tmp_path / "terms"
    started = tmp_path / "started"
    script = (
        "import signal, sys, time\n"
        f"def stop(*a):\n    open({str(marker)!r}, 'a').write('t'); time.sleep(0.5); sys.exit(0)\n"
        "signal.signal(signal.SIGTERM, stop)\n"
        f"open({str(started)!r}, 'a').write('s')\n"
        "time.sleep(60)\n"
    )
    proc = keepalive("--", sys.executable, "-c", script, start_new_session=True)
    wait_for(lambda: started.exists())
    os.killpg(proc.pid, signal.SIGTERM)
    proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert marker.read_text() == "t"


def test_when_the_supervisor_is_killed_outright_its_command_dies_too(tmp_path):
    pid_file = tmp_path / "pid"
    script = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    proc = keepalive("--", sys.executable, "-c", script)
    wait_for(lambda: pid_file.exists() and pid_file.read_text())
    child = int(pid_file.read_text())
    proc.kill()
    proc.communicate(timeout=30)

    def gone() -> bool:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return True
        # A zombie waiting for init to reap it is gone too.
        stat = Path(f"/proc/{child}/stat")
        return not stat.exists() or stat.read_text().split()[2] == "Z"

    wait_for(gone, timeout=10)


def test_no_command_is_a_clear_usage_error():
    proc = keepalive()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2
    assert "no command given" in err


def test_when_its_parent_is_killed_outright_the_supervisor_stops_its_command(tmp_path):
    """Honcho killed with SIGKILL (its terminal closed, a test cleaning up) must not leave the
    stack running: the supervisor is told as by SIGTERM and stops its command."""
    pid_file = tmp_path / "pids"
    script = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "platform"), str(ROOT)])}
    launcher = (
        "import subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-m', 'web.keepalive', '--', sys.executable, '-c', sys.argv[1]])\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", launcher, script], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              text=True)
    supervisor = int(parent.stdout.readline())
    wait_for(lambda: pid_file.exists() and pid_file.read_text())
    child = int(pid_file.read_text())
    parent.kill()
    parent.wait(timeout=30)

    def gone(pid: int) -> bool:
        stat = Path(f"/proc/{pid}/stat")
        return not stat.exists() or stat.read_text().split()[2] == "Z"

    wait_for(lambda: gone(supervisor) and gone(child), timeout=20)
