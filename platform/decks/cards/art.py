"""Generated card art: one SVG illustration per card, drawn from the card's own data.

The picture is deterministic: a random stream seeded with a hash of the card's game, id,
name, type, costs, stats and keywords picks the colours and places the shapes, so a card
always looks the same, and two cards look different. What a player reads at a glance:

- the palette: the game's (``Game.art_hue``: a hue of its own, cool blues, warm golds)
  shifted per card;
- the backdrop (rays, waves, stripes or motes) and the emblem's colour, per card;
- the emblem in the middle: the card type (a crest, shield, burst or chevrons with a small
  mirrored sigil of its own for creatures, a crown or a sun for
  commanders, shards for tactics, rings for responses, hills for Sites, a gem for
  Attachments, crystals for Fragments);
- the ring of dots around the emblem: the number the game names (``Game.art_dots``, the
  key of one of its card's numbers: a cost, a value);
- small marks along the bottom edge: its keywords (Armor, Ranged, On Reveal, Plague...).

Pure Python and no Django: the view serves it, the templates link it.
"""

from __future__ import annotations

import colorsys
import functools
import hashlib
import math
import random
from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape

from engine import games

WIDTH, HEIGHT = 240, 140
#: Bumped whenever the drawing changes, so that cached pictures are fetched again.
ART_VERSION = 2

#: Hue shift of each card type within its game's palette.
TYPE_HUE_SHIFT = {
    "leader": 70, "celestial": 250, "entity": 0, "unit": 0, "site": -85, "attachment": 30,
    "tactic": 150, "reaction": -40, "lightspeed": -30, "fragment": 180,
}


def _rgb(hue: float, sat: float, light: float) -> str:
    r, g, b = colorsys.hls_to_rgb((hue % 360) / 360, light, sat)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def art_seed(data: Mapping[str, Any], game: str) -> str:
    """The hex digest that seeds a card's picture (also its cache version)."""
    parts = [str(ART_VERSION), game, str(data.get("id")), str(data.get("name")), str(data.get("type"))]
    for key in ("focus", "time", "power", "vitality", "presence", "armor", "cq"):
        parts.append(f"{key}={data.get(key)}")
    parts.append(",".join(str(k) for k in data.get("keywords") or ()))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def _polygon(cx: float, cy: float, radius: float, sides: int, rotation: float) -> str:
    return " ".join(
        f"{cx + radius * math.cos(rotation + 2 * math.pi * i / sides):.1f},"
        f"{cy + radius * math.sin(rotation + 2 * math.pi * i / sides):.1f}"
        for i in range(sides)
    )


def _star(cx: float, cy: float, outer: float, inner: float, points: int, rotation: float) -> str:
    coords = []
    for i in range(points * 2):
        radius = outer if i % 2 == 0 else inner
        angle = rotation + math.pi * i / points
        coords.append(f"{cx + radius * math.cos(angle):.1f},{cy + radius * math.sin(angle):.1f}")
    return " ".join(coords)


def _sigil(rng: random.Random, cx: float, cy: float, color: str) -> list[str]:
    """A small mirrored 5x5 pattern (like an identicon): a mark of this card alone."""
    cell, out = 5, []
    for row in range(5):
        for col in range(3):
            if rng.random() < 0.5:
                for c in {col, 4 - col}:
                    out.append(f'<rect x="{cx - 12.5 + c * cell:.1f}" y="{cy - 12.5 + row * cell:.1f}" '
                               f'width="{cell}" height="{cell}" fill="{color}"/>')
    return out


def _background(rng: random.Random, light: str) -> list[str]:
    """One of a few backdrops, so that cards differ before one reads the emblem."""
    kind = rng.choice(("rays", "waves", "stripes", "motes"))
    out: list[str] = []
    if kind == "rays":
        ox, oy = rng.uniform(0, WIDTH), rng.choice((0, HEIGHT))
        for _ in range(rng.randint(6, 11)):
            angle = rng.uniform(0, 2 * math.pi)
            out.append(f'<line x1="{ox:.1f}" y1="{oy}" x2="{ox + 300 * math.cos(angle):.1f}" '
                       f'y2="{oy + 300 * math.sin(angle):.1f}" stroke="{light}" stroke-width="{rng.uniform(2, 9):.1f}" '
                       f'opacity="0.1"/>')
    elif kind == "waves":
        for _ in range(rng.randint(3, 5)):
            y = rng.uniform(15, HEIGHT - 10)
            amp = rng.uniform(6, 16)
            out.append(f'<path d="M0,{y:.1f} Q{WIDTH / 4:.1f},{y - amp:.1f} {WIDTH / 2:.1f},{y:.1f} '
                       f'T{WIDTH},{y:.1f}" fill="none" stroke="{light}" stroke-width="2" opacity="0.16"/>')
    elif kind == "stripes":
        step = rng.randint(14, 26)
        for x in range(-HEIGHT, WIDTH, step):
            out.append(f'<line x1="{x}" y1="{HEIGHT}" x2="{x + HEIGHT}" y2="0" stroke="{light}" stroke-width="3" '
                       f'opacity="0.08"/>')
    for _ in range(rng.randint(8, 22)):
        out.append(f'<circle cx="{rng.uniform(0, WIDTH):.1f}" cy="{rng.uniform(0, HEIGHT):.1f}" '
                   f'r="{rng.uniform(0.6, 2.4):.1f}" fill="{light}" opacity="{rng.uniform(0.2, 0.7):.2f}"/>')
    return out


def _emblem(card_type: str, rng: random.Random, main: str, light: str, dark: str) -> list[str]:
    """The central shape that says the card type."""
    cx, cy = WIDTH / 2, HEIGHT / 2 + 2
    out: list[str] = []
    if card_type in ("entity", "unit"):
        shape = rng.choice(("crest", "shield", "burst", "twin", "chevrons"))
        if shape == "crest":
            sides = rng.choice((5, 6, 7, 8))
            out.append(f'<polygon points="{_polygon(cx, cy, 36, sides, -math.pi / 2)}" fill="{main}" '
                       f'stroke="{light}" stroke-width="3"/>')
        elif shape == "shield":
            out.append(f'<path d="M{cx - 32},{cy - 34} H{cx + 32} V{cy} Q{cx + 32},{cy + 30} {cx},{cy + 42} '
                       f'Q{cx - 32},{cy + 30} {cx - 32},{cy} Z" fill="{main}" stroke="{light}" stroke-width="3"/>')
        elif shape == "burst":
            points = rng.randint(5, 9)
            out.append(f'<polygon points="{_star(cx, cy, 44, 26, points, rng.random())}" fill="{main}" '
                       f'stroke="{light}" stroke-width="2"/>')
        elif shape == "twin":
            out.append(f'<circle cx="{cx - 18}" cy="{cy}" r="28" fill="{main}" stroke="{light}" stroke-width="2"/>')
            out.append(f'<circle cx="{cx + 18}" cy="{cy}" r="28" fill="{main}" stroke="{light}" stroke-width="2" '
                       f'opacity="0.85"/>')
        else:
            for i in range(3):
                y = cy - 30 + i * 22
                out.append(f'<polygon points="{cx - 40},{y + 18} {cx},{y - 4} {cx + 40},{y + 18} {cx + 40},{y + 28} '
                           f'{cx},{y + 6} {cx - 40},{y + 28}" fill="{light if i == 1 else main}"/>')
        out.extend(_sigil(rng, cx, cy, dark))
    elif card_type in ("leader", "celestial"):
        rays = rng.randint(7, 12)
        out.append(f'<polygon points="{_star(cx, cy, 44, 24, rays, rng.random())}" fill="{light}" opacity="0.85"/>')
        out.append(f'<circle cx="{cx}" cy="{cy}" r="22" fill="{main}" stroke="{dark}" stroke-width="3"/>')
        if card_type == "leader":
            out.append(f'<polygon points="{cx - 13},{cy + 6} {cx - 13},{cy - 8} {cx - 6},{cy - 1} {cx},{cy - 11} '
                       f'{cx + 6},{cy - 1} {cx + 13},{cy - 8} {cx + 13},{cy + 6}" fill="{dark}"/>')
        else:
            out.append(f'<circle cx="{cx + 7}" cy="{cy - 5}" r="14" fill="{dark}" opacity="0.75"/>')
    elif card_type == "tactic":
        for i in range(3):
            x = cx - 30 + i * 30 + rng.uniform(-6, 6)
            fill = light if i == 1 else main
            out.append(f'<polygon points="{x - 8:.1f},{cy - 40} {x + 10:.1f},{cy - 4} {x - 2:.1f},{cy - 2} '
                       f'{x + 8:.1f},{cy + 40} {x - 12:.1f},{cy + 2} {x:.1f},{cy}" fill="{fill}"/>')
    elif card_type in ("reaction", "lightspeed"):
        for i, radius in enumerate((42, 30, 18)):
            start = rng.uniform(0, math.pi)
            end = start + math.pi * rng.uniform(1.1, 1.7)
            x1, y1 = cx + radius * math.cos(start), cy + radius * math.sin(start)
            x2, y2 = cx + radius * math.cos(end), cy + radius * math.sin(end)
            out.append(f'<path d="M{x1:.1f},{y1:.1f} A{radius},{radius} 0 1,1 {x2:.1f},{y2:.1f}" fill="none" '
                       f'stroke="{light if i % 2 == 0 else main}" stroke-width="{6 - i}" stroke-linecap="round"/>')
        out.append(f'<circle cx="{cx}" cy="{cy}" r="6" fill="{light}"/>')
    elif card_type == "site":
        peaks = [(0, HEIGHT)]
        for i in range(5):
            peaks.append((20 + i * 50 + rng.uniform(-10, 10), HEIGHT - rng.uniform(40, 80)))
        peaks.append((WIDTH, HEIGHT))
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in peaks)
        out.append(f'<polygon points="{points}" fill="{main}" opacity="0.9"/>')
        out.append(f'<circle cx="{cx + rng.uniform(-60, 60):.1f}" cy="34" r="14" fill="{light}"/>')
        out.append(f'<rect x="{cx - 6}" y="{HEIGHT - 62}" width="12" height="40" fill="{dark}"/>')
        roof = f"{cx - 12},{HEIGHT - 60} {cx},{HEIGHT - 78} {cx + 12},{HEIGHT - 60}"
        out.append(f'<polygon points="{roof}" fill="{dark}"/>')
    elif card_type == "attachment":
        out.append(f'<polygon points="{cx},{cy - 40} {cx + 30},{cy} {cx},{cy + 40} {cx - 30},{cy}" fill="{main}" '
                   f'stroke="{light}" stroke-width="3"/>')
        out.append(f'<polygon points="{cx},{cy - 40} {cx + 30},{cy} {cx},{cy}" fill="{light}" opacity="0.45"/>')
        out.append(f'<line x1="{cx - 30}" y1="{cy}" x2="{cx + 30}" y2="{cy}" stroke="{dark}" stroke-width="2"/>')
    else:  # fragments and anything new: a cluster of crystals
        for _ in range(rng.randint(3, 5)):
            x, h = cx + rng.uniform(-40, 40), rng.uniform(30, 60)
            w = rng.uniform(8, 14)
            out.append(f'<polygon points="{x:.1f},{cy + 30 - h:.1f} {x + w:.1f},{cy + 18:.1f} {x:.1f},{cy + 34:.1f} '
                       f'{x - w:.1f},{cy + 18:.1f}" fill="{rng.choice((main, light))}" opacity="0.85" '
                       f'stroke="{dark}"/>')
    return out


#: Marks along the bottom edge, one per keyword (matched on the keyword's first word).
def _keyword_mark(word: str, x: float, y: float, color: str) -> str:
    key = word.split()[0].casefold() if word else ""
    marks = {
        "armor": f'<path d="M{x - 6},{y - 7} h12 v6 q0,7 -6,9 q-6,-2 -6,-9 z" fill="{color}"/>',
        "barrier": f'<circle cx="{x}" cy="{y}" r="7" fill="none" stroke="{color}" stroke-width="2.5"/>',
        "rapid": f'<path d="M{x - 7},{y - 6} l6,6 l-6,6 M{x},{y - 6} l6,6 l-6,6" fill="none" stroke="{color}" '
                 f'stroke-width="2.5"/>',
        "mobile": f'<path d="M{x - 8},{y} q4,-7 8,0 t8,0" fill="none" stroke="{color}" stroke-width="2.5"/>',
        "ranged": f'<path d="M{x - 8},{y + 6} L{x + 6},{y - 6} M{x + 6},{y - 6} h-6 M{x + 6},{y - 6} v6" fill="none" '
                  f'stroke="{color}" stroke-width="2.5"/>',
        "structure": f'<rect x="{x - 6}" y="{y - 7}" width="12" height="14" fill="{color}"/>',
        "on": f'<ellipse cx="{x}" cy="{y}" rx="8" ry="5" fill="none" stroke="{color}" stroke-width="2"/>'
              f'<circle cx="{x}" cy="{y}" r="2.5" fill="{color}"/>',
        "ongoing": f'<circle cx="{x}" cy="{y}" r="6" fill="{color}"/>',
        "at": f'<path d="M{x - 7},{y + 5} a7,7 0 0,1 14,0 z" fill="{color}"/>',
        "when": f'<path d="M{x - 6},{y - 6} L{x + 6},{y + 6} M{x + 6},{y - 6} L{x - 6},{y + 6}" stroke="{color}" '
                f'stroke-width="2.5"/>',
        "plague": f'<circle cx="{x - 4}" cy="{y - 3}" r="3" fill="{color}"/><circle cx="{x + 4}" cy="{y - 2}" r="2.5" '
                  f'fill="{color}"/><circle cx="{x}" cy="{y + 4}" r="3" fill="{color}"/>',
        "mute": f'<circle cx="{x}" cy="{y}" r="7" fill="none" stroke="{color}" stroke-width="2"/>'
                f'<path d="M{x - 5},{y + 5} L{x + 5},{y - 5}" stroke="{color}" stroke-width="2"/>',
        "extra": f'<rect x="{x - 7}" y="{y - 7}" width="14" height="14" fill="none" stroke="{color}" stroke-width="2"/>'
                 f'<path d="M{x},{y - 4} v8 M{x - 4},{y} h8" stroke="{color}" stroke-width="2"/>',
        "lightspeed": f'<path d="M{x - 8},{y} h16 M{x + 2},{y - 5} l6,5 l-6,5" fill="none" stroke="{color}" '
                      f'stroke-width="2.5"/>',
    }
    return marks.get(key, f'<circle cx="{x}" cy="{y}" r="3" fill="{color}"/>')


@functools.lru_cache(maxsize=512)
def _render(game: str, card_type: str, name: str, seed: str, cost: int, keywords: tuple[str, ...]) -> str:
    rng = random.Random(seed)
    hue = games[game].art_hue + TYPE_HUE_SHIFT.get(card_type, 0) + rng.uniform(-55, 55)
    sky_top, sky_bottom = _rgb(hue, 0.45, 0.16), _rgb(hue + rng.uniform(-70, 70), 0.5, rng.uniform(0.24, 0.36))
    accent = hue + rng.choice((150, 180, 210, 0)) + rng.uniform(-20, 20)
    main, light, dark = _rgb(accent, 0.6, 0.55), _rgb(accent + 25, 0.85, 0.78), _rgb(hue, 0.4, 0.1)
    grad = f"g{seed[:10]}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-label="Art of {escape(name)}">',
        f'<defs><linearGradient id="{grad}" x1="0" y1="0" x2="{rng.uniform(0.2, 1):.2f}" y2="1">'
        f'<stop offset="0" stop-color="{sky_top}"/><stop offset="1" stop-color="{sky_bottom}"/>'
        "</linearGradient></defs>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="url(#{grad})"/>',
    ]
    # A backdrop and a large faint shape, placed by the card's stream.
    parts.extend(_background(rng, light))
    ghost = _polygon(rng.uniform(30, WIDTH - 30), rng.uniform(20, HEIGHT - 20), rng.uniform(50, 90),
                     rng.randint(3, 6), rng.random() * 6)
    parts.append(f'<polygon points="{ghost}" fill="{light}" opacity="0.08"/>')
    # The ring of dots: the card's cost or CQ.
    cx, cy = WIDTH / 2, HEIGHT / 2 + 2
    dots = max(0, min(cost, 10))
    for i in range(dots):
        angle = -math.pi / 2 + 2 * math.pi * i / max(dots, 1)
        parts.append(f'<circle cx="{cx + 54 * math.cos(angle):.1f}" cy="{cy + 54 * math.sin(angle):.1f}" r="3.5" '
                     f'fill="{light}" opacity="0.9"/>')
    parts.extend(_emblem(card_type, rng, main, light, dark))
    for i, keyword in enumerate(keywords[:6]):
        parts.append(_keyword_mark(keyword, 16 + i * 22, HEIGHT - 14, light))
    parts.append("</svg>")
    return "".join(parts)


def card_art_svg(*, game: str, data: Mapping[str, Any]) -> str:
    """The SVG picture of one card given its game and engine JSON."""
    cost = data.get(games[game].art_dots)
    cost = cost if isinstance(cost, int) and not isinstance(cost, bool) else 0
    return _render(
        game,
        str(data.get("type", "")),
        str(data.get("name", "")),
        art_seed(data, game),
        cost,
        tuple(str(k) for k in data.get("keywords") or ()),
    )
