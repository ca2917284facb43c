"""docker-compose.yml, .env.example, README and the Procfile agree with the settings.

Docker does not run on the development machines, so the compose file is checked by
reading it: it must parse, define the five services with health checks, keep the worker
scalable, and pass exactly the environment variables that the settings read.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SETTINGS_SOURCES = [ROOT / "platform" / "config" / "settings.py", ROOT / "platform" / "config" / "celery.py"]
ENV_READ = re.compile(r"""(?:\benv(?:\.\w+)?|os\.environ\.get|os\.environ\.setdefault)\(\s*["']([A-Z][A-Z0-9_]*)["']""")
REQUIRED_IN_CONTAINERS = {"DJANGO_DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL"}
APP_SERVICES = ("web", "worker", "live", "periodic", "lab", "beat")


def settings_variables() -> set[str]:
    """Every environment variable the settings and the Celery app read."""
    names = set()
    for source in SETTINGS_SOURCES:
        names.update(ENV_READ.findall(source.read_text(encoding="utf-8")))
    names.discard("DJANGO_SETTINGS_MODULE")
    return names


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))


def test_settings_read_the_documented_core_variables():
    assert REQUIRED_IN_CONTAINERS <= settings_variables()


def test_compose_defines_the_stack_with_health_checks(compose):
    services = compose["services"]
    assert {"postgres", "redis", "web", "worker", "periodic", "beat"} <= set(services)
    for name in ("postgres", "redis", "web", "worker", "periodic"):
        assert services[name].get("healthcheck", {}).get("test"), f"{name} has no health check"
    for name in APP_SERVICES:
        conditions = services[name]["depends_on"]
        assert conditions["postgres"]["condition"] == "service_healthy"
        assert conditions["redis"]["condition"] == "service_healthy"


def test_compose_passes_exactly_the_variables_the_settings_read(compose):
    known = settings_variables()
    for name in (*APP_SERVICES, "migrate"):
        environment = compose["services"][name]["environment"]
        assert REQUIRED_IN_CONTAINERS <= set(environment), name
        unknown = set(environment) - known
        assert not unknown, f"{name} sets variables the settings never read: {sorted(unknown)}"


def test_compose_points_the_apps_at_its_own_postgres_and_redis(compose):
    environment = compose["services"]["web"]["environment"]
    assert environment["DATABASE_URL"].startswith("postgres://")
    assert "@postgres:5432/" in environment["DATABASE_URL"]
    assert environment["REDIS_URL"].startswith("redis://redis:6379/")
    assert environment["DJANGO_DEBUG"] == "0"


def test_compose_worker_scales_and_beat_stays_single(compose):
    worker = compose["services"]["worker"]
    assert "container_name" not in worker and "ports" not in worker
    assert worker["command"][:4] == ["celery", "-A", "config", "worker"]
    beat = compose["services"]["beat"]
    assert beat["command"][:4] == ["celery", "-A", "config", "beat"]
    assert beat.get("deploy", {}).get("replicas") == 1


def test_compose_web_runs_the_same_asgi_app_as_the_procfile(compose):
    procfile = dict(
        line.split(":", 1) for line in (ROOT / "Procfile").read_text(encoding="utf-8").splitlines() if line.strip()
    )
    assert set(procfile) == {"web", "worker", "live", "periodic", "lab", "beat"}
    assert "config.asgi:application" in procfile["web"]
    assert "config.asgi:application" in compose["services"]["web"]["command"]
    assert command_of(procfile["worker"])[:4] == ["celery", "-A", "config", "worker"]
    assert command_of(procfile["beat"])[:4] == ["celery", "-A", "config", "beat"]


def command_of(line: str) -> list[str]:
    """A Procfile command without its ``exec python -m web.keepalive --`` supervisor."""
    words = line.split()
    assert words[0] == "exec", f"the shell should hand its place to web.keepalive: {line}"
    words = words[1:]
    assert words[:4] == ["python", "-m", "web.keepalive", "--"], f"not run under web.keepalive: {line}"
    return words[4:]


def test_every_procfile_process_restarts_when_it_dies_and_every_compose_service_too(compose):
    """A process that dies must not take the others down (honcho stops them all when one
    exits): each Procfile line runs under web.keepalive, each compose app service restarts."""
    procfile = dict(
        line.split(":", 1) for line in (ROOT / "Procfile").read_text(encoding="utf-8").splitlines() if line.strip()
    )
    for line in procfile.values():
        command_of(line)
    for name in APP_SERVICES:
        assert compose["services"][name].get("restart") == "unless-stopped", name


def test_every_queue_has_a_worker_in_procfile_and_compose(compose):
    """Every queue of config/celery.py is served by some Procfile worker and some compose worker,
    and the live queue by a worker that serves nothing else, so a live bot's move never waits
    behind a bot match."""
    from config.celery import QUEUES

    procfile = dict(
        line.split(":", 1) for line in (ROOT / "Procfile").read_text(encoding="utf-8").splitlines() if line.strip()
    )
    for commands in ([command_of(line) for line in procfile.values()],
                     [compose["services"][name]["command"] for name in APP_SERVICES]):
        served = set()
        for command in commands:
            if command[:4] == ["celery", "-A", "config", "worker"]:
                # A worker started without --queues serves every queue, in priority order.
                served |= set(command[command.index("--queues") + 1].split(",")) if "--queues" in command \
                    else set(QUEUES)
        assert served == set(QUEUES)
    assert command_of(procfile["live"])[command_of(procfile["live"]).index("--queues") + 1] == "live"
    live = compose["services"]["live"]["command"]
    assert live[live.index("--queues") + 1] == "live"


def test_beat_tasks_have_a_worker_of_their_own_in_procfile_and_compose(compose):
    """A match worker plays one long task at a time; the sweeper must not wait for it
    (docs/architecture.md, tests/platform/test_periodic_queue.py)."""
    procfile = dict(
        line.split(":", 1) for line in (ROOT / "Procfile").read_text(encoding="utf-8").splitlines() if line.strip()
    )
    periodic = command_of(procfile["periodic"])
    assert periodic[:4] == ["celery", "-A", "config", "worker"]
    assert periodic[periodic.index("--queues") + 1] == "periodic"
    command = compose["services"]["periodic"]["command"]
    assert command[:4] == ["celery", "-A", "config", "worker"]
    assert command[command.index("--queues") + 1] == "periodic"


def test_readme_and_env_example_name_every_variable():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    example_names = set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]*)=", example, flags=re.MULTILINE))
    for name in sorted(settings_variables()):
        assert f"`{name}`" in readme, f"README.md does not document {name}"
        assert name in example_names, f".env.example does not list {name}"
    assert example_names <= settings_variables(), "the .env.example lists variables the settings never read"


def test_readme_starts_with_the_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_block = readme.split("```")[1]
    assert "make run" in first_block and "make test" in first_block
