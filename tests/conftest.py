"""Fixtures and markers shared by the whole suite.

- ``@pytest.mark.redis``: the test needs the Redis server at ``REDIS_URL``;
  ``@pytest.mark.browser``: it needs Chromium at /usr/bin/chromium and Playwright.
  Without them the test is skipped with the reason; with ``REQUIRE_SERVICES=1`` (as in
  CI) it fails instead, so a CI run can never pass by skipping what it is meant to prove.
- ``celery_worker_process``: a real ``celery -A config worker`` subprocess on the
  configured broker and on the test database.
- ``asgi_server``: the real ASGI server (uvicorn) on a free port, answering ``/healthz``.
- ``browser_page``: a Playwright page in headless Chromium; the ``screenshot`` fixture
  keeps a picture of it under ``artifacts/``; ``closed_port``: a port nothing listens on.

Tests that read what a subprocess wrote must use ``@pytest.mark.django_db(transaction=True)``:
the subprocesses cannot see rows inside the test's own open transaction, and the test
must not hold the database locked while they write.
"""

from __future__ import annotations

import functools
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import settings as hypothesis_settings

ROOT = Path(__file__).resolve().parents[1]

# Hypothesis: in CI (``CI`` set, as .ci/run's runner sets it) every property test draws the
# same examples on every run (derandomized from the test's own source), so a CI failure
# replays exactly on any machine; everywhere, a failure prints the ``@reproduce_failure``
# blob that replays it. A local run keeps exploring new examples.
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
hypothesis_settings.register_profile("dev", print_blob=True)
hypothesis_settings.load_profile("ci" if os.environ.get("CI") else "dev")
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
STARTUP_SECONDS = 60.0


def require_services() -> bool:
    """True under ``REQUIRE_SERVICES=1``: a missing service fails instead of skipping."""
    return os.environ.get("REQUIRE_SERVICES") == "1"


# --------------------------------------------------------------------------- service markers


@functools.cache
def redis_missing() -> str | None:
    """Why Redis cannot be used, or None when ``REDIS_URL`` answers a PING."""
    url = os.environ.get("REDIS_URL", "")
    if not url:
        return "REDIS_URL is not set: this test needs a Redis server (the embedded defaults cannot cross processes)"
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2).ping()
    except Exception as exc:
        return f"Redis at REDIS_URL={url} does not answer: {exc}"
    return None


@functools.cache
def browser_missing() -> str | None:
    """Why a browser test cannot run, or None when Chromium and Playwright are there."""
    if not CHROMIUM.exists():
        return f"Chromium not found at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        return f"Playwright is not installed: {exc}"
    return None


SERVICE_MARKERS = {"redis": redis_missing, "browser": browser_missing}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker, missing in SERVICE_MARKERS.items():
        if item.get_closest_marker(marker) is None:
            continue
        reason = missing()
        if reason is None:
            continue
        if require_services():
            pytest.fail(f"REQUIRE_SERVICES=1 and {reason}", pytrace=False)
        pytest.skip(reason)


SERVICE_FIXTURES = ("celery_worker_process", "asgi_server")


@pytest.hookimpl(tryfirst=True)  # before pytest-django's own (tryfirst too, registered earlier)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that starts a worker or server gets the test database even without asking:
    the subprocesses must never run on the development database in var/.

    The longest files go first: a file with a ``slow`` test, then files with browser, server
    or worker tests, then the rest, each file's tests together and in their order.
    pytest-xdist hands tests out in this order, so a run's last minutes are short tests
    shared between its processes instead of one process finishing a long soak alone.
    pytest-django then groups the tests by the database they need (as Django does), keeping
    this order within each group, and counts the marker added here."""
    rank: dict[str, int] = {}
    for item in items:
        starts_service = any(f in item.fixturenames for f in SERVICE_FIXTURES)
        if item.get_closest_marker("django_db") is None and starts_service:
            item.add_marker(pytest.mark.django_db(transaction=True))
        heavy = 0 if item.get_closest_marker("slow") else 1 if (
            item.get_closest_marker("browser") or starts_service) else 2
        module = item.nodeid.split("::", 1)[0]
        rank[module] = min(rank.get(module, 2), heavy)
    order = {id(item): index for index, item in enumerate(items)}
    items.sort(key=lambda item: (rank[item.nodeid.split("::", 1)[0]], order[id(item)]))


FLUSH_LOCK_TIMEOUT = "20s"


def pytest_configure(config: pytest.Config) -> None:
    """A transactional test empties the tables after itself (``flush``). A server or worker
    of the run may still be finishing a request of that test (a socket's last frames, a
    tick): PostgreSQL can then pick the flush's TRUNCATE as a deadlock victim. That is
    the other process's lock, not a fault of the test, so the flush is tried again.

    A TRUNCATE waits for every open transaction on its tables, and PostgreSQL detects no
    deadlock when the holder is not itself waiting for a lock (a session idle in a
    transaction whose process waits for something else). Such a wait would last forever,
    so on PostgreSQL the flush waits at most ``FLUSH_LOCK_TIMEOUT`` for its locks; then the
    sessions blocking it (the run's own servers and workers: only test databases are
    flushed) are reported as a warning, with their last statement, and ended, and the
    flush is tried again."""
    from django.test import TransactionTestCase

    original = TransactionTestCase._fixture_teardown
    if getattr(original, "retries_deadlocks", False):
        return

    def fixture_teardown(self, attempts: int = 5):
        for attempt in range(1, attempts + 1):
            try:
                with flush_lock_timeout(self.databases):
                    return original(self)
            except Exception as exc:
                text = f"{exc} {exc.__cause__ or ''}"
                if attempt == attempts:
                    raise
                if "lock timeout" in text:
                    end_flush_blockers(self.databases)
                elif "deadlock detected" not in text:
                    raise
                time.sleep(0.5 * attempt)

    fixture_teardown.retries_deadlocks = True
    TransactionTestCase._fixture_teardown = fixture_teardown


@contextmanager
def flush_lock_timeout(databases) -> Iterator[None]:
    from django.db import connections

    postgres = [connections[alias] for alias in databases if connections[alias].vendor == "postgresql"]
    for connection in postgres:
        with connection.cursor() as cursor:
            cursor.execute(f"SET lock_timeout = '{FLUSH_LOCK_TIMEOUT}'")
    try:
        yield
    finally:
        for connection in postgres:
            if connection.connection is not None and not connection.needs_rollback:
                with connection.cursor() as cursor:
                    cursor.execute("SET lock_timeout = 0")


def end_flush_blockers(databases) -> None:
    """Report and end the sessions on this test database that hold locks on its tables."""
    import warnings

    from django.db import connections

    for alias in databases:
        connection = connections[alias]
        if connection.vendor != "postgresql" or not is_test_database(connection.settings_dict):
            continue
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid, state, now() - xact_start, application_name, left(query, 300) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                "AND xact_start < now() - interval '10 seconds'"
            )
            blockers = cursor.fetchall()
            for pid, *_ in blockers:
                cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
        if blockers:
            warnings.warn(
                "flush waited over " + FLUSH_LOCK_TIMEOUT + " for sessions in a transaction; ended them: "
                + "; ".join(f"pid {pid} {state} for {age}: {query!r}" for pid, state, age, _, query in blockers),
                stacklevel=1,
            )


@pytest.fixture(autouse=True)
def fresh_channel_layers() -> Iterator[None]:
    """Each test gets new channel layer instances. Channels keeps one layer object per
    process, and a test that speaks ASGI in this process runs it in an event loop of its
    own (``async_to_sync``), closed at the end. The Redis layer keeps receive state (its
    receive lock, per-channel buffers and clean-up locks, its connection pools) from the
    loop it last received in; a later test's loop then inherited a half-finished
    receive, and closing that loop waited forever for a task that could not end."""
    yield
    from channels.layers import channel_layers

    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def fresh_bot_names() -> None:
    """Each test reads the names of the bots anew (accounts.names keeps them a few seconds
    per process): a bot of an earlier, rolled-back test must not mark a name in this one."""
    from accounts.names import forget_bot_usernames

    forget_bot_usernames()


@pytest.fixture(autouse=True)
def fresh_hidden_decks() -> None:
    """Each test reads which decks are hidden anew (live.selectors keeps it a few seconds
    per process): the entries of an earlier, rolled-back test must neither hide nor show a
    deck in this one."""
    from live.selectors import forget_hidden_decks

    forget_hidden_decks()


@pytest.fixture
def effects_recorded():
    """Every task and channel-layer message the code under test would send, recorded instead
    of sent (``web.effects.recording``): ``.tasks`` as (name, args, queue, countdown),
    ``.sends`` as (group, message), in order."""
    from web import effects

    with effects.recording() as record:
        yield record


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove what this run left behind: ``var/test-<run id>/`` (broker folder, logs) and
    its keys in Redis (``test-<run id>:...``)."""
    from django.conf import settings

    if not settings.configured or not hasattr(settings, "TEST_RUN_ID"):
        return
    run_dir = Path(settings.TEST_RUN_DIR)
    if run_dir.is_relative_to(ROOT / "var"):
        shutil.rmtree(run_dir, ignore_errors=True)
    if settings.REDIS_URL and redis_missing() is None:
        delete_redis_keys(f"test-{settings.TEST_RUN_ID}:*")


def delete_redis_keys(pattern: str) -> None:
    """Delete the keys of ``REDIS_URL``'s database that match ``pattern``."""
    import redis

    client = redis.Redis.from_url(os.environ["REDIS_URL"], socket_connect_timeout=2)
    keys = list(client.scan_iter(match=pattern, count=500))
    if keys:
        client.delete(*keys)


# --------------------------------------------------------------------------- subprocess helpers


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url(settings_dict: dict) -> str:
    """``DATABASE_URL`` naming the database that ``settings_dict`` points at."""
    engine = settings_dict["ENGINE"]
    if engine.endswith("sqlite3"):
        return f"sqlite:///{Path(settings_dict['NAME']).resolve()}"
    if engine.endswith("postgresql"):
        user = quote(settings_dict.get("USER") or "", safe="")
        password = quote(settings_dict.get("PASSWORD") or "", safe="")
        credentials = f"{user}:{password}@" if password else (f"{user}@" if user else "")
        host = settings_dict.get("HOST") or ""
        port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
        return f"postgres://{credentials}{host}{port}/{quote(settings_dict['NAME'], safe='')}"
    raise RuntimeError(f"no DATABASE_URL form known for {engine}")


def is_test_database(settings_dict: dict) -> bool:
    """Whether the connection has been switched to its test database (Django renames it
    to ``TEST["NAME"]`` or, without one, to ``test_<name>``)."""
    from django.db.backends.base.creation import TEST_DATABASE_PREFIX

    test_name = (settings_dict.get("TEST") or {}).get("NAME")
    if test_name:
        return str(settings_dict["NAME"]) == str(test_name)
    return str(settings_dict["NAME"]).startswith(TEST_DATABASE_PREFIX)


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for a server or worker subprocess: this run's settings, its test
    database (pytest-django's ``test_<name>``) and this run's broker namespace."""
    from django.conf import settings
    from django.db import connection

    if not is_test_database(connection.settings_dict):
        raise RuntimeError(
            f"the connection points at {connection.settings_dict['NAME']}, not at a test database: "
            "request this fixture from a django_db test"
        )
    env = dict(os.environ)
    # A subprocess is no pytest-xdist worker: the run id it is given (this worker's, or a
    # test's own) is used as it is, never suffixed again with the worker's name.
    env.pop("PYTEST_XDIST_WORKER", None)
    env.update(
        DJANGO_SETTINGS_MODULE=os.environ["DJANGO_SETTINGS_MODULE"],
        DATABASE_URL=database_url(connection.settings_dict),
        TEST_RUN_ID=settings.TEST_RUN_ID,
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT / "platform"), str(ROOT), env.get("PYTHONPATH")) if p),
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


@dataclass
class ServiceProcess:
    """A subprocess the suite started, with its log file."""

    name: str
    process: subprocess.Popen
    log_path: Path

    def log(self, tail: int = 4000) -> str:
        text = self.log_path.read_text(encoding="utf-8", errors="replace") if self.log_path.exists() else ""
        return text[-tail:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


def start_process(name: str, args: list[str], env: dict[str, str], log_dir: Path) -> ServiceProcess:
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"{name}.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(args, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    return ServiceProcess(name=name, process=process, log_path=log_path)


def wait_until(service: ServiceProcess, ready, what: str, timeout: float = STARTUP_SECONDS) -> None:
    """Poll ``ready()`` until true; fail with the process log if it exits or times out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if service.process.poll() is not None:
            pytest.fail(f"{service.name} exited ({service.process.returncode}) before {what}:\n{service.log()}")
        if ready():
            return
        time.sleep(0.2)
    service.stop()
    pytest.fail(f"{service.name}: no {what} within {timeout:g} s:\n{service.log()}")


# --------------------------------------------------------------------------- Celery worker


@dataclass
class CeleryWorker(ServiceProcess):
    """A running worker; ``hostname`` is what tasks see as ``self.request.hostname``."""

    hostname: str = ""


@pytest.fixture
def celery_worker_process(celery_worker_session: CeleryWorker) -> Iterator[CeleryWorker]:
    """The run's real worker, idle and taking tasks for this test only.

    The worker lives for the whole session of its pytest process but consumes its queues
    only while a test holds it: between such tests it takes nothing, so a later test that
    creates a match (whose task is sent on commit) and plays it here, in-process, is never
    raced by the worker for it. A test starts only once the worker has finished what an
    earlier test left it (a match still being played when that test ended would otherwise
    hold the one-at-a-time worker while this test waits for its own task)."""
    set_consuming(celery_worker_session, True)
    wait_until_idle(celery_worker_session)
    yield celery_worker_session
    set_consuming(celery_worker_session, False)


IDLE_SECONDS = 600.0


@pytest.fixture
def worker_consuming():
    """``set_consuming(worker, bool)``: what ``celery_worker_process`` does around a test,
    for the test that checks it."""
    return set_consuming


def set_consuming(worker: CeleryWorker, consuming: bool, timeout: float = IDLE_SECONDS) -> None:
    """Make ``worker`` take from every queue (``add_consumer``) or from none
    (``cancel_consumer``), and wait until it has said so. A worker of the solo pool busy with
    a task answers once the task ends."""
    from config.celery import QUEUES, app

    command = app.control.add_consumer if consuming else app.control.cancel_consumer
    deadline = time.monotonic() + timeout
    for queue in QUEUES:
        while True:
            if worker.process.poll() is not None:
                pytest.fail(f"{worker.name} exited ({worker.process.returncode}):\n{worker.log()}")
            replies = command(queue, destination=[worker.hostname], reply=True, timeout=2.0) or []
            if any(worker.hostname in reply for reply in replies):
                break
            if time.monotonic() > deadline:
                pytest.fail(f"{worker.name} did not {'take' if consuming else 'leave'} queue {queue} "
                            f"within {timeout:g} s:\n{worker.log()}")


def wait_until_idle(worker: CeleryWorker, timeout: float = IDLE_SECONDS) -> None:
    """Wait until ``worker`` answers a remote-control ping with no task running. A worker of
    the solo pool busy with a task does not answer at all until the task ends."""
    from config.celery import app

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if worker.process.poll() is not None:
            pytest.fail(f"{worker.name} exited ({worker.process.returncode}):\n{worker.log()}")
        active = app.control.inspect(destination=[worker.hostname], timeout=2.0, limit=1).active() or {}
        if active.get(worker.hostname) == []:
            return
        time.sleep(0.5)
    pytest.fail(f"{worker.name} still busy after {timeout:g} s:\n{worker.log()}")


@pytest.fixture(scope="session")
def celery_worker_session(django_db_setup) -> Iterator[CeleryWorker]:
    """A real ``celery -A config worker`` on the configured broker and the test database,
    consuming every queue in priority order; tests take it through ``celery_worker_process``."""
    from django.conf import settings

    hostname = f"test-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
    service = start_process(
        "celery-worker",
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--hostname", hostname,
         "--queues", "live,periodic,tournaments,matches,ladder,default,lab", "--loglevel", "info",
         "--without-mingle", "--without-gossip"],
        subprocess_env(),
        Path(settings.TEST_RUN_DIR),
    )
    worker = CeleryWorker(name=service.name, process=service.process, log_path=service.log_path, hostname=hostname)
    try:
        wait_until(worker, lambda: f"{hostname} ready." in worker.log(tail=100_000), "'ready.' in its log")
        yield worker
    finally:
        worker.stop()


# --------------------------------------------------------------------------- ASGI server


@dataclass
class AsgiServer(ServiceProcess):
    """A running ASGI server: ``url("/healthz")``, ``ws_url("/ws/site/")``."""

    port: int = 0

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return f"{self.origin}{path}"

    def ws_url(self, path: str) -> str:
        return f"ws://127.0.0.1:{self.port}{path}"


def _answers_http(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5):
            return True
    except urllib.error.HTTPError:
        return True  # A 503 is still the server answering.
    except OSError:
        return False


@pytest.fixture(scope="session")
def asgi_server(django_db_setup) -> Iterator[AsgiServer]:
    """The site under uvicorn, as ``make run`` serves it, on a free port of 127.0.0.1,
    using the test database; yielded once ``/healthz`` answers."""
    from django.conf import settings

    port = free_port()
    service = start_process(
        "asgi-server",
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--lifespan", "off", "--log-level", "info"],
        subprocess_env(),
        Path(settings.TEST_RUN_DIR),
    )
    server = AsgiServer(name=service.name, process=service.process, log_path=service.log_path, port=port)
    try:
        wait_until(server, lambda: _answers_http(server.url("/healthz")), "answer on /healthz")
        yield server
    finally:
        server.stop()


# --------------------------------------------------------------------------- browser


@pytest.fixture(scope="session")
def browser_thread():
    """Playwright and headless Chromium (/usr/bin/chromium; Playwright never downloads a
    browser here) for the whole pytest process, on a thread of their own
    (``tests/browser_thread.py``): the test's thread keeps no event loop, so it may use the
    database, and Chromium starts once instead of once per test."""
    from browser_thread import BrowserThread

    owner = BrowserThread(str(CHROMIUM), CHROMIUM_ARGS)
    try:
        yield owner
    finally:
        owner.stop()


@pytest.fixture
def browser_page(browser_thread):
    """A fresh page, in a browser context of its own (no cookie or storage of an earlier
    test), driven from the test's thread through ``browser_thread``'s proxies. Every context
    the test opened is closed after it."""
    page = browser_thread.new_page(viewport={"width": 1280, "height": 900})
    try:
        yield page
    finally:
        browser_thread.close_contexts()


@pytest.fixture
def screenshot():
    """``screenshot(page, name)``: save a full-page PNG as ``artifacts/<name>.png``
    (gitignored) and return its path."""

    def take(page, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


@pytest.fixture
def service_env():
    """``service_env(**extra)``: the environment for another subprocess on this run's test
    database and broker (see ``subprocess_env``)."""
    return subprocess_env


@pytest.fixture
def closed_port() -> int:
    """A port of 127.0.0.1 with nothing listening: a service URL there is a service down."""
    return free_port()
