"""A test pilot, ``sleepy``: thinks for ``seconds`` (default 4) on its first decision, then
plays like ``random``. Importing this module registers it; the lease test starts a
worker with ``--include sleepy_bot`` so the worker knows it too."""

from __future__ import annotations

import time

from engine.bots import REGISTRY, BotSpec
from engine.runner import RandomBot


class SleepyBot(RandomBot):
    def __init__(self, *, name: str, version: str, seconds: float = 4.0):
        super().__init__()
        self.name, self.version, self.seconds = name, version, float(seconds)
        self.slept = False

    def act(self, observation, seat, rng):
        if not self.slept:
            self.slept = True
            time.sleep(self.seconds)
        return super().act(observation, seat, rng)


REGISTRY.setdefault("sleepy", BotSpec(name="sleepy", version="1", factory=SleepyBot,
                                      description="Thinks for a while on its first decision, then plays randomly.",
                                      settings={"seconds": "how long the first decision takes"}))
