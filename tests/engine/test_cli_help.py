"""``python -m engine --help`` and every command's ``--help`` print their help and exit 0.

The commands are read from the parser itself, so a command added later is covered too.
(A ``%`` in a help text, such as "95% CIs", once made argparse crash with ValueError.)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from engine.__main__ import build_parser, main

ROOT = Path(__file__).resolve().parents[2]


def _commands() -> list[str]:
    parser = build_parser()
    found = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
    assert found, "the engine CLI has no subcommands"
    return sorted(name for action in found for name in action.choices)


def test_the_commands_are_found_from_the_parser():
    commands = _commands()
    assert {"play", "arena", "replay", "cards", "decks", "bench"} <= set(commands)


@pytest.mark.parametrize("command", _commands())
def test_every_command_prints_its_help(command, capsys):
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage:") and command in out.splitlines()[0]


def test_the_top_level_help_runs_in_a_fresh_process():
    done = subprocess.run([sys.executable, "-m", "engine", "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "arena" in done.stdout and "Traceback" not in done.stderr


def test_the_arena_help_shows_its_percent_sign(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "95% CIs" in capsys.readouterr().out
