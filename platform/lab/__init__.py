"""The deck lab: a deck's owner has the workers play N matches of the deck against a
field, and reads what the deck wins, against what, and which cards carry it (docs/lab.md)."""
