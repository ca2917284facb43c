"""Metagame pages: ``/meta/`` (the games) and ``/meta/<game>/`` (matchups, cards and "deck
or pilot?" of a period and sources). Thin: the figures come from ``meta.selectors``; this
module only turns them into the strings and colours the templates show."""

from __future__ import annotations

import functools

from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import escape
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe

from meta import selectors
from meta.models import Source
from meta.sources import available_sources
from web.games import game_choices, game_names, game_title


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def points(value: float | None) -> str:
    """A difference of win rates in percentage points: ``+4.2``."""
    return "—" if value is None else f"{value * 100:+.1f}"


def cell_colour(rate: float | None) -> str:
    """A cell's background: red below 50 %, green above, stronger the further from even."""
    if rate is None:
        return ""
    hue = 0 if rate < 0.5 else 145
    alpha = min(abs(rate - 0.5) * 2, 1) * 0.75 + 0.08
    return f"hsl({hue} 70% 45% / {alpha:.2f})"


@functools.cache
def _deck_url() -> str:
    sentinel = 987654321
    return reverse("decks:detail", args=[sentinel]).replace(str(sentinel), "{}")


def _deck(d: selectors.DeckFigure) -> dict:
    return {"id": d.deck_id, "name": d.name, "owner": d.owner, "url": _deck_url().format(d.deck_id),
            "matches": d.matches, "win_rate": percent(d.win_rate)}


# The matrix's body and the card table's rows are written here rather than in the
# template: a page has up to 156 cells and a hundred card rows, and building them as
# strings takes a fraction of what the template engine spends on the same lookups.


def _title(deck: selectors.DeckFigure, column: selectors.DeckFigure, cell: selectors.Cell) -> str:
    return (f"{deck.name} against {column.name}: {percent(cell.win_rate)} in {cell.matches} "
            f"match{'es' if cell.matches != 1 else ''} ({cell.wins} won, {cell.draws} drawn, {cell.losses} lost)")


def matrix_rows(matrix: selectors.Matrix) -> str:
    """The matrix's ``<tbody>`` rows: the row deck's label, then a cell per column deck."""
    out = []
    for deck, line in zip(matrix.decks, matrix.cells, strict=True):
        d = _deck(deck)
        parts = [f'<tr><th scope="row" class="meta-row"><a href="{escape(d["url"])}">{escape(deck.name)}</a>'
                 f'<span class="muted small"> {deck.matches} · {d["win_rate"]}</span></th>']
        for column, cell in zip(matrix.decks, line, strict=True):
            if cell is None:
                parts.append(f'<td class="meta-cell meta-mirror" title="{escape(deck.name)} against itself">—</td>')
                continue
            colour = "" if cell.thin else cell_colour(cell.win_rate)
            style = f' style="background: {colour}"' if colour else ""
            rate = percent(cell.win_rate) if cell.matches else "·"
            parts.append(f'<td class="meta-cell{" is-thin" if cell.thin else ""}"{style} '
                         f'title="{escape(_title(deck, column, cell))}"><span class="meta-rate">{rate}</span>'
                         f'<span class="meta-count">{cell.matches}</span></td>')
        out.append("".join(parts) + "</tr>")
    return mark_safe("\n".join(out))  # every name escaped above


@functools.cache
def _card_url(game: str) -> str:
    sentinel = "card-sentinel-987654321"
    return reverse("cards:detail", args=[game, sentinel]).replace(sentinel, "{}")


def _value(number: float | None) -> str:
    return "" if number is None else repr(number)


def card_rows(game: str, cards: list[selectors.CardFigure]) -> str:
    """The card table's ``<tbody>`` rows, each carrying its figures in data attributes
    for the sort and the type filter (static/meta/meta.js)."""
    url = _card_url(game)
    out = []
    for c in cards:
        play_rate = ('<span class="muted" title="A commander is in play from the start">—</span>'
                     if c.is_commander else percent(c.play_rate))
        thin = ' class="is-thin"' if c.games < selectors.MIN_MATCHES else ""
        out.append(
            f'<tr data-type="{escape(c.type)}" data-name="{escape(c.name)}" data-decks="{c.decks}" '
            f'data-games="{c.games}" data-play-rate="{_value(c.play_rate)}" '
            f'data-played-win-rate="{_value(c.played_win_rate)}" data-improvement="{_value(c.improvement)}"{thin}>'
            f'<td><a href="{escape(url.format(c.id))}">{escape(c.name)}</a></td><td>{escape(c.type_title)}</td>'
            f'<td class="num">{c.decks}</td><td class="num">{c.games}</td><td class="num">{play_rate}</td>'
            f'<td class="num">{percent(c.played_win_rate)} <span class="meta-count">{c.played}</span></td>'
            f'<td class="num">{points(c.improvement)} <span class="meta-count">{c.drawn}</span></td></tr>')
    return mark_safe("\n".join(out))  # every name escaped above


def _bad_request(request: HttpRequest, error: ValidationError) -> HttpResponse:
    reason = " ".join(m for messages in error.message_dict.values() for m in messages)
    return HttpResponse(render_to_string("400.html", {"reason": reason[:1].upper() + reason[1:] + "."},
                                         request=request), status=400)


@require_safe
def meta_index(request: HttpRequest) -> HttpResponse:
    """``/meta/``: one link per game."""
    return render(request, "meta/index.html", {"games": game_choices()})


@require_safe
def meta_game(request: HttpRequest, game: str) -> HttpResponse:
    """``/meta/<game>/?period=7|30|all&source=ladder&source=tournament&source=lab``."""
    if game not in game_names():
        raise Http404(f"no game '{game}'")
    try:
        f = selectors.meta_filter(game=game, period=request.GET.get("period"), sources=request.GET.getlist("source"))
    except ValidationError as error:
        return _bad_request(request, error)
    matrix = selectors.matchup_matrix(f)
    pilots = [{"deck": _deck(d.deck), "pilots": [
        {"pilot": p.pilot, "matches": p.matches, "wins": p.wins, "draws": p.draws, "losses": p.losses,
         "win_rate": percent(p.win_rate), "thin": p.matches < selectors.MIN_MATCHES} for p in d.pilots]}
        for d in selectors.pilot_figures(f)]
    chosen = set(f.sources)
    return render(request, "meta/game.html", {
        "game": game,
        "game_title": game_title(game),
        "filter": f,
        "periods": [(key, selectors.PERIOD_LABELS[key]) for key in selectors.PERIODS],
        "sources": [(key, label, key in chosen) for key, label in Source.choices if key in available_sources()],
        "source_query": urlencode([("source", s) for s in f.sources]) if chosen != set(Source.values) else "",
        "matrix": {"decks": [_deck(d) for d in matrix.decks], "rows": matrix_rows(matrix)},
        "card_rows": card_rows(game, selectors.card_figures(f)),
        "card_types": selectors.card_types(game),
        "pilots": pilots,
        "min_matches": selectors.MIN_MATCHES,
    })
