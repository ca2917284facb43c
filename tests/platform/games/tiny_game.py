"""Highcard under the name the tests import (``tiny_game``, ``tests.platform.games.tiny_game``):
the game itself is the package ``highcard`` beside this module, with its looks in its
``site/`` folder."""

if __package__:
    from .highcard import (  # noqa: F401
        CAPTAINS,
        COPIES,
        DECK_SIZE,
        GAME,
        HAND,
        NAME,
        VALUES,
        HighcardGame,
        HighcardState,
        _card_id,
        _draw,
        register,
        unregister,
    )
else:
    from highcard import (  # noqa: F401
        CAPTAINS,
        COPIES,
        DECK_SIZE,
        GAME,
        HAND,
        NAME,
        VALUES,
        HighcardGame,
        HighcardState,
        _card_id,
        _draw,
        register,
        unregister,
    )
