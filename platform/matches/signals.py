"""Signals other apps listen to, so that the matches app never imports them.

- ``match_finished(sender=Match, match=<Match>)``: sent inside the transaction that marks
  a match done, with its row locked and its games and result written. A receiver may
  write in the same transaction (the ladder records ratings there, so a result and its
  rating change land together or not at all) or register work with
  ``transaction.on_commit`` (a tournament advancing its round). An exception raised by a
  receiver rolls the whole result back.
- ``match_failed(sender=Match, match=<Match>)``: sent inside the transaction that marks a
  match failed (the organiser of a tournament is shown it and may re-run it).
"""

from __future__ import annotations

from django.dispatch import Signal

match_finished = Signal()
match_failed = Signal()
