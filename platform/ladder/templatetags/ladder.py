"""Template tags of the ladder: the rating panels of deck and player pages, form badges,
trend arrows. Deck and player templates include ``ladder/_deck_rating.html`` or
``ladder/_player_rating.html``, which call the panels here."""

from __future__ import annotations

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe

from ladder import conf
from ladder.models import Rating
from ladder.selectors import deck_rating, head_to_head, player_ratings, rank_of, rating_chart

register = template.Library()

#: A trend smaller than this (in rating points over five matches) shows as flat.
TREND_FLAT = 0.05
FORM_TITLES = {"W": "win", "D": "shared first place", "L": "loss"}


@register.filter
def percent(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f}%"


#: Each result letter's badge, rendered once (a leaderboard page shows 25 rows of up to ten).
_BADGES = {c: format_html('<span class="form-badge form-{}" title="{}">{}</span>', c, title, c)
           for c, title in FORM_TITLES.items()}


@register.simple_tag
def form_badges(form: str) -> str:
    if not form:
        return mark_safe('<span class="muted">—</span>')
    titles = ", ".join(FORM_TITLES[c] for c in form)  # a letter other than W, D, L is a KeyError
    return mark_safe(f'<span class="form-badges" aria-label="Recent results, oldest first: {escape(titles)}">'
                     f'{"".join(_BADGES[c] for c in form)}</span>')


@register.simple_tag
def trend_arrow(trend: float) -> str:
    if trend > TREND_FLAT:
        return format_html('<span class="trend trend-up" title="+{} over the last five matches">▲ {}</span>',
                           f"{trend:.1f}", f"{trend:.1f}")
    if trend < -TREND_FLAT:
        return format_html('<span class="trend trend-down" title="{} over the last five matches">▼ {}</span>',
                           f"{trend:.1f}", f"{-trend:.1f}")
    return mark_safe('<span class="trend trend-flat" title="No change over the last five matches">▬</span>')


def _panel(rating: Rating | None) -> dict:
    if rating is None:
        return {"rating": None}
    return {
        "rating": rating,
        "rank": rank_of(rating),
        "chart": rating_chart(rating=rating),
        "head_to_head": head_to_head(rating=rating),
        "provisional_games": conf.provisional_games(),
    }


@register.inclusion_tag("ladder/_rating_panel.html")
def deck_rating_panel(deck) -> dict:
    """A deck's bot-pool rating: rank, numbers, the history chart and head to head."""
    return {"deck": deck, "subject": "deck", "panels": [_panel(deck_rating(deck_id=deck.pk))],
            "game": deck.game}


@register.inclusion_tag("ladder/_rating_panel.html")
def player_rating_panel(player) -> dict:
    """A player's humans-pool ratings, one panel per game played live."""
    return {"player": player, "subject": "player", "panels": [_panel(r) for r in player_ratings(player=player)]}
