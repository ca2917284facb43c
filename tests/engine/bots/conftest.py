"""Registers the toy game's evaluation before any bot test runs."""

from . import helpers  # noqa: F401  (importing registers the toy evaluator)
