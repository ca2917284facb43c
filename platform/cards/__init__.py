"""Cards: the two games' card pools, browsable and searchable, each card drawn as a card face."""
