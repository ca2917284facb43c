"""``in_thread(work)``: database work on a thread of its own, with its own connection.

Browser tests once needed it: Playwright's sync API ran its event loop in the test's
thread, where Django refuses synchronous database calls. Playwright now runs on a thread
of its own (``browser_thread.py``) and a browser test may use the database directly; the
tests written before still call this helper, which works the same: ``work()`` runs on a
new thread (its connection closed at the end) and its result or exception comes back.
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
