"""``make bench`` rewrites only the sections of bench/RESULTS.md that it measured: the
figures measured by hand (ladder, live load, soak, ...) survive a run."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_run():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_run_replaces_its_own_sections_and_keeps_the_others():
    run = load_run()
    existing = ("# Benchmarks\n\nold preamble\n\n## Engine speed\n\nold engine table\n\n"
                "## Ladder\n\nhand-measured ladder figures\n\n### Round 3\n\nmore ladder\n\n"
                "## Tournament pairing\n\nold pairing\n")
    merged = run.merge(existing, {"Engine speed": "## Engine speed\n\nnew engine table\n",
                                  "Live bot latency (make bench)": "## Live bot latency (make bench)\n\nnew live\n"})
    assert "new engine table" in merged and "old engine table" not in merged
    assert "hand-measured ladder figures" in merged and "### Round 3\n\nmore ladder" in merged
    assert "old pairing" in merged
    assert merged.index("## Engine speed") < merged.index("## Ladder") < merged.index("## Live bot latency")


def test_the_checked_in_results_keep_every_section_through_a_merge():
    run = load_run()
    text = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8")
    headings = [h for h, _ in run.sections_of(text) if h]
    merged = run.merge(text, {})
    assert [h for h, _ in run.sections_of(merged) if h] == headings
