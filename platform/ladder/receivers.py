"""Signal receivers of the ladder: a finished match moves ratings in the same transaction."""

from __future__ import annotations

from django.dispatch import receiver

from ladder.services import rating_record_match
from matches.models import Match
from matches.signals import match_finished


@receiver(match_finished, sender=Match, dispatch_uid="ladder.rate_finished_match")
def rate_finished_match(sender, match: Match, **kwargs) -> None:
    """Rate ``match`` inside the transaction that records its result (see
    ``ladder.services.rating_record_match``): the result and the rating change land
    together or not at all."""

    rating_record_match(match=match)
