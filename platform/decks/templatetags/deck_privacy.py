"""``{% deck_hidden deck as label %}``: the hidden label of a deck its viewer may not see.

``deck`` is a Deck, a DeckVersion or a deck id; ``label`` is "Deck hidden until <time>
UTC" when the page's viewer may not see it (``decks.permissions.DeckVisibility``, built
once per request), else "". Templates that name a deck show the label instead of its
name, link and version. Without a request in the context, the viewer is anonymous.
"""

from __future__ import annotations

from django import template

from decks.permissions import deck_visibility, request_deck_visibility

register = template.Library()


@register.simple_tag(takes_context=True)
def deck_hidden(context, deck) -> str:
    if deck is None or deck == "":
        return ""
    request = context.get("request")
    if request is not None:
        return request_deck_visibility(request).label(deck)
    cached = context.render_context.get("deck_visibility")
    if cached is None:
        cached = context.render_context["deck_visibility"] = deck_visibility(None)
    return cached.label(deck)
