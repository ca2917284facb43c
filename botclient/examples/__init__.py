"""Example bots, one per game: each a ``choose(view, legal) -> action`` to start from."""
