"""``in_thread(work)``: database work from a browser test.

Playwright's sync API runs an event loop in the test's thread while a page is open, and
Django refuses synchronous database calls from a thread with a running loop. A browser
test that reads or writes rows does it through this helper: ``work()`` runs on a thread
of its own (with its own connection, closed at the end) and its result or exception
comes back to the test.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def in_thread(work: Callable[[], T], timeout: float = 300.0) -> T:
    from django.db import connection

    out: dict = {}

    def run() -> None:
        try:
            out["value"] = work()
        except BaseException as error:  # noqa: BLE001 - raised again in the test's thread
            out["error"] = error
        finally:
            connection.close()

    thread = threading.Thread(target=run, name="db-work")
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise TimeoutError(f"database work still running after {timeout:g} s")
    if "error" in out:
        raise out["error"]
    return out.get("value")
