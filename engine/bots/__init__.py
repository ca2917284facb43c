"""Bots: named, versioned players a deck can choose as its pilot.

``make_bot("random")`` builds a bot from its name (``name[:level]``).
"""

from __future__ import annotations

from engine.runner import RandomBot

REGISTRY = {
    "random": RandomBot,
}


def bot_names() -> list[str]:
    return sorted(REGISTRY)


def make_bot(spec: str):
    """Build a bot from a spec such as ``random``; raises ``ValueError`` naming the known bots."""
    name = spec.strip().lower()
    if name not in REGISTRY:
        raise ValueError(f"unknown bot '{spec}' (known: {', '.join(bot_names())})")
    return REGISTRY[name]()
