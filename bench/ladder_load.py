"""A small HTTP load generator for the ladder benchmark (run as its own process).

``python bench/ladder_load.py --base http://127.0.0.1:PORT --path /ladder/tempofront/ --requests 1000
--concurrency 4 --max-seconds 120`` sends GET requests over keep-alive connections from
``concurrency`` threads, bounded in count and time, loopback only, and prints one JSON
object: requests, errors, seconds, requests/s, median, p95 and max latency in ms.

``--paths-file FILE`` (a JSON list of paths) instead of ``--path``: each request asks for
a path drawn at random from the list (``--label`` names the run in the output), so a
cache in front of the pages misses as often as real visitors' varied URLs make it.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import threading
import time
from urllib.parse import urlsplit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base", required=True)
    parser.add_argument("--path")
    parser.add_argument("--paths-file", help="a JSON list of paths; each request draws one at random")
    parser.add_argument("--label", help="the run's name in the output (default: the path)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--max-seconds", type=float, default=120.0)
    args = parser.parse_args()
    base = urlsplit(args.base)
    if base.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("loopback only")
    if bool(args.path) == bool(args.paths_file):
        raise SystemExit("give --path or --paths-file")
    paths = [args.path]
    if args.paths_file:
        with open(args.paths_file) as handle:
            paths = json.load(handle)
    latencies: list[float] = []
    distinct: set[str] = set()
    errors: list[str] = []
    lock = threading.Lock()
    remaining = [args.requests]
    deadline = time.monotonic() + args.max_seconds

    def worker(number: int) -> None:
        rng = random.Random(args.seed * 100 + number)
        conn = http.client.HTTPConnection(base.hostname, base.port, timeout=30)
        while True:
            with lock:
                if remaining[0] <= 0 or time.monotonic() > deadline:
                    return
                remaining[0] -= 1
            path = rng.choice(paths)
            start = time.perf_counter()
            try:
                conn.request("GET", path)
                response = conn.getresponse()
                response.read()
                status = response.status
            except Exception as exc:  # count it and reconnect
                conn.close()
                conn = http.client.HTTPConnection(base.hostname, base.port, timeout=30)
                with lock:
                    errors.append(type(exc).__name__)
                continue
            elapsed = (time.perf_counter() - start) * 1000
            with lock:
                latencies.append(elapsed)
                distinct.add(path)
                if status != 200:
                    errors.append(str(status))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(args.concurrency)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - began
    ordered = sorted(latencies)
    p95 = ordered[max(0, int(round(0.95 * len(ordered))) - 1)] if ordered else None
    print(json.dumps({
        "path": args.label or args.path or args.paths_file, "distinct_paths": len(distinct),
        "requests": len(latencies), "errors": len(errors), "error_kinds": sorted(set(errors)),
        "concurrency": args.concurrency, "seconds": round(seconds, 2),
        "requests_per_second": round(len(latencies) / seconds, 1) if seconds else None,
        "median_ms": round(statistics.median(ordered), 1) if ordered else None,
        "p95_ms": round(p95, 1) if p95 is not None else None, "max_ms": round(ordered[-1], 1) if ordered else None,
    }))


if __name__ == "__main__":
    main()
