"""One headless Chromium per pytest process, driven from a thread of its own.

Playwright's sync API runs an event loop in the thread that started it, for as long as it
is open, and Django refuses synchronous database calls from a thread with a running loop.
Started in the test's own thread, Playwright (its Node driver and Chromium) had to be
started and stopped around every browser test: about 1.3 CPU-seconds and 1.3 s each.

Here Playwright lives on one thread for the whole pytest process (:class:`BrowserThread`),
and a test drives it through proxies (:class:`Remote`): every call, attribute and context
manager of a Playwright object runs on that thread, and what comes back is again a proxy
(a Playwright object) or the plain value. Event handlers a test registers (``page.on``)
run on that thread too, with proxies as arguments, and a proxy used on that thread calls
straight through. Exceptions (Playwright's ``Error`` and ``TimeoutError`` included) reach
the test as they were raised. Each test gets a fresh browser context (cookies, storage),
and every context is closed after it.
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable
from typing import Any

#: Keyword arguments a Playwright method called through a proxy gets unless the test gives
#: its own. ``wait_for_function`` polls every 50 ms instead of on every animation frame,
#: its default: polling on frames has headless Chromium paint 60 frames a second, in
#: software, for as long as the wait lasts (0.2 CPU-seconds a second of waiting on a plain
#: page; a test waiting for a whole match to end waits for most of the match).
CALL_DEFAULTS: dict[str, dict[str, Any]] = {"wait_for_function": {"polling": 50}}

#: Seconds a test waits for one Playwright call before failing (each call has Playwright's
#: own timeouts too; this only stops a wedged browser thread from hanging the run).
CALL_TIMEOUT = 600.0


class BrowserThread:
    """Playwright and one Chromium, started on first use, on one thread of their own."""

    def __init__(self, executable: str, args: list[str]) -> None:
        self.executable = executable
        self.args = args
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="playwright")
        self.thread: threading.Thread | None = None
        self.playwright = None
        self.browser = None

    def run(self, work: Callable[[], Any]) -> Any:
        """``work()`` on the browser thread, its result or exception returned here."""
        if threading.current_thread() is self.thread:
            return work()
        return self.pool.submit(work).result(CALL_TIMEOUT)

    def _browser(self):
        """The running browser (launched again if the last one crashed or was closed)."""
        from playwright.sync_api import sync_playwright

        self.thread = threading.current_thread()
        if self.playwright is None:
            self.playwright = sync_playwright().start()
        if self.browser is None or not self.browser.is_connected():
            self.browser = self.playwright.chromium.launch(executable_path=self.executable, headless=True,
                                                           args=self.args)
        return self.browser

    def new_page(self, **options) -> Remote:
        """A page in a new browser context."""
        return Remote(self, self.run(lambda: self._browser().new_context(**options).new_page()))

    def close_contexts(self) -> None:
        """Close every context a test opened (its pages, cookies and storage go with it)."""

        def close() -> None:
            if self.browser is not None and self.browser.is_connected():
                for context in list(self.browser.contexts):
                    context.close()

        self.run(close)

    def stop(self) -> None:
        def stop() -> None:
            if self.browser is not None and self.browser.is_connected():
                self.browser.close()
            if self.playwright is not None:
                self.playwright.stop()
            self.browser = self.playwright = None

        try:
            self.run(stop)
        finally:
            self.pool.shutdown(wait=True)


def _is_playwright(value: Any) -> bool:
    module = type(value).__module__ or ""
    return module.startswith("playwright.") and not isinstance(value, BaseException)


class Remote:
    """A Playwright object used from another thread: calls run on the browser thread."""

    __slots__ = ("_owner", "_target")

    def __init__(self, owner: BrowserThread, target: Any) -> None:
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_target", target)

    # -- wrapping what crosses the thread boundary

    def _wrap(self, value: Any) -> Any:
        if _is_playwright(value):
            return Remote(self._owner, value)
        if isinstance(value, list):
            return [self._wrap(item) for item in value]
        if isinstance(value, tuple):
            return tuple(self._wrap(item) for item in value)
        return value

    def _unwrap(self, value: Any) -> Any:
        if isinstance(value, Remote):
            return value._target
        if isinstance(value, list):
            return [self._unwrap(item) for item in value]
        if isinstance(value, tuple):
            return tuple(self._unwrap(item) for item in value)
        if isinstance(value, dict):
            return {key: self._unwrap(item) for key, item in value.items()}
        if callable(value) and not _is_playwright(value):
            handler = value

            def called_back(*args, **kwargs):  # on the browser thread: its arguments as proxies
                return handler(*(self._wrap(a) for a in args), **{k: self._wrap(v) for k, v in kwargs.items()})

            return called_back
        return value

    # -- the proxy itself

    def __getattr__(self, name: str) -> Any:
        value = self._owner.run(lambda: getattr(self._target, name))
        if callable(value) and not _is_playwright(value):
            method = value

            def call(*args, **kwargs):
                args = tuple(self._unwrap(a) for a in args)
                kwargs = {k: self._unwrap(v) for k, v in {**CALL_DEFAULTS.get(name, {}), **kwargs}.items()}
                return self._wrap(self._owner.run(lambda: method(*args, **kwargs)))

            return call
        return self._wrap(value)

    def __setattr__(self, name: str, value: Any) -> None:
        self._owner.run(lambda: setattr(self._target, name, self._unwrap(value)))

    def __enter__(self):
        return self._wrap(self._owner.run(self._target.__enter__))

    def __exit__(self, *exc):
        return self._owner.run(lambda: self._target.__exit__(*exc))

    def __str__(self) -> str:
        return self._owner.run(lambda: str(self._target))

    def __repr__(self) -> str:
        return f"Remote({self._owner.run(lambda: repr(self._target))})"

    def __eq__(self, other: object) -> bool:
        return self._target == (other._target if isinstance(other, Remote) else other)

    def __hash__(self) -> int:
        return hash(self._target)

    def __bool__(self) -> bool:
        return True
