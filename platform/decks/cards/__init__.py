"""Card pages and the cards API: the two games' card pools, browsable and searchable, each
card drawn as a card face. Part of the decks app (the pools are the engine's data, with no
models of their own); URL namespace ``cards``."""
