"""Reads of the guide: each game's rules page rendered from its package's ``site/rules.md``
and each game's glossary from its ``site/glossary.toml`` (``web.game_files``).

Both are files with one source: the rules page is the project's own rules document, so the
site never repeats (and never drifts from) it. Each file is parsed again only when its
modification time changes, so an edited rules page shows on the next request without a
restart, and an unchanged one costs a ``stat``.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import markdown
from django.urls import reverse

from web.game_files import site_file
from web.games import GAME_TITLES

#: Sections of a rules document written for card and engine authors rather than players:
#: shown last, folded, under "For card authors".
TECHNICAL_SECTIONS = frozenset(
    {
        "Actions", "Views", "Views and events", "The effect vocabulary", "Card files", "Positions for tests",
        "Rules parameters", "Match the Twos outside the match",
    }
)
#: ``(`test_name`)`` references to the engine's tests: useful to developers, noise to players.
_TEST_REFERENCE = re.compile(r"\s*\((?:`test_[^`]+`(?:,\s*)?)+\)", re.MULTILINE)


def rules_path(game: str) -> Path | None:
    """The game's rules document, ``site/rules.md`` in its package, or None."""
    return site_file(game, "rules.md")


def glossary_path(game: str) -> Path | None:
    """The game's glossary, ``site/glossary.toml`` in its package, or None."""
    return site_file(game, "glossary.toml")


@dataclass(frozen=True)
class Heading:
    """One entry of a rules page's table of contents."""

    id: str
    title: str
    level: int
    technical: bool = False


@dataclass(frozen=True)
class RulesPage:
    """A game's rules document as HTML, split into its player and technical sections."""

    game: str
    title: str
    sections: tuple[tuple[Heading, str], ...]
    toc: tuple[Heading, ...]

    @property
    def player_sections(self) -> list[tuple[Heading, str]]:
        return [s for s in self.sections if not s[0].technical]

    @property
    def technical_sections(self) -> list[tuple[Heading, str]]:
        return [s for s in self.sections if s[0].technical]


@dataclass(frozen=True)
class Term:
    """One glossary entry of one game."""

    game: str
    slug: str
    term: str
    kind: str
    short: str
    rule: str = ""
    aliases: tuple[str, ...] = field(default=())

    @property
    def url(self) -> str:
        return reverse("guide:glossary", args=[self.game]) + f"#{self.slug}"

    def to_json(self) -> dict:
        return {
            "game": self.game,
            "game_title": GAME_TITLES[self.game],
            "slug": self.slug,
            "term": self.term,
            "kind": self.kind,
            "short": self.short,
            "url": self.url,
            "aliases": list(self.aliases),
        }


_cache: dict[tuple[str, Path], tuple[float, object]] = {}


def _cached(kind: str, path: Path, build):
    mtime = path.stat().st_mtime
    hit = _cache.get((kind, path))
    if hit and hit[0] == mtime:
        return hit[1]
    value = build(path)
    _cache[(kind, path)] = (mtime, value)
    return value


def _slugify(value: str, separator: str) -> str:
    return re.sub(r"[^a-z0-9]+", separator, value.casefold()).strip(separator)


def _render_rules(game: str, path: Path) -> RulesPage:
    text = path.read_text(encoding="utf-8")
    title_match = re.search(r"^# (.+)$", text, re.MULTILINE)
    title = title_match.group(1).strip() if title_match else GAME_TITLES[game]
    # The preamble (title and the note on where the engine lives) speaks to developers;
    # the page starts at the first section.
    start = re.search(r"^## ", text, re.MULTILINE)
    body = _TEST_REFERENCE.sub("", text[start.start():] if start else text)
    chunks = re.split(r"^(?=## )", body, flags=re.MULTILINE)
    sections: list[tuple[Heading, str]] = []
    toc: list[Heading] = []
    for chunk in chunks:
        if not chunk.strip():
            continue
        heading_title = chunk.splitlines()[0].removeprefix("## ").strip()
        technical = heading_title in TECHNICAL_SECTIONS
        md = markdown.Markdown(
            extensions=["toc", "tables", "fenced_code", "sane_lists"],
            extension_configs={"toc": {"slugify": _slugify, "toc_depth": "2-3"}},
        )
        html = md.convert(chunk)
        html = html.replace("<table>", '<div class="table-scroll" tabindex="0"><table>').replace(
            "</table>", "</table></div>"
        )
        for token in md.toc_tokens:
            toc.append(Heading(id=token["id"], title=token["name"], level=token["level"], technical=technical))
            for child in token.get("children", []):
                toc.append(Heading(id=child["id"], title=child["name"], level=child["level"], technical=technical))
        first = md.toc_tokens[0] if md.toc_tokens else {"id": _slugify(heading_title, "-"), "name": heading_title}
        sections.append((Heading(id=first["id"], title=first["name"], level=2, technical=technical), html))
    return RulesPage(game=game, title=title, sections=tuple(sections), toc=tuple(toc))


def rules_page(*, game: str) -> RulesPage:
    """The rules page of ``game`` (no sections for a game that has no rules document);
    ``KeyError`` for an unknown game."""
    if game not in GAME_TITLES:
        raise KeyError(game)
    path = rules_path(game)
    if path is None or not path.exists():
        return RulesPage(game=game, title=GAME_TITLES[game], sections=(), toc=())
    return _cached("rules", path, lambda path: _render_rules(game, path))


def _load_glossary(game: str, path: Path) -> tuple[Term, ...]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return tuple(
        Term(
            game=game,
            slug=entry["slug"],
            term=entry["term"],
            kind=entry["kind"],
            short=entry["short"],
            rule=entry.get("rule", ""),
            aliases=tuple(entry.get("aliases", ())),
        )
        for entry in data["term"]
    )


def glossary(*, game: str) -> tuple[Term, ...]:
    """Every glossary term of ``game`` in the file's order (none for a game that has no
    glossary file); ``KeyError`` for an unknown game."""
    if game not in GAME_TITLES:
        raise KeyError(game)
    path = glossary_path(game)
    if path is None:
        return ()
    return _cached("glossary", path, lambda path: _load_glossary(game, path))


def glossary_sorted(*, game: str) -> list[Term]:
    """The glossary in alphabetical order, as the glossary page lists it."""
    return sorted(glossary(game=game), key=lambda t: t.term.casefold())


def term_lookup(*, game: str, word: str) -> Term | None:
    """The term of ``game`` that ``word`` names (its name, slug or an alias, any case), or None."""
    folded = word.casefold().strip()
    for term in glossary(game=game):
        names = {term.term.casefold(), term.slug, *(a.casefold() for a in term.aliases)}
        if folded in names:
            return term
    return None


def terms_used_by(*, game: str, card_type: str, keywords: tuple[str, ...] | list[str], text: str) -> list[Term]:
    """The glossary terms a card relies on: its type, its keywords, then every other term
    its rules text names (whole words, any case), each once, in that order."""
    found: list[Term] = []
    for word in (card_type, *keywords):
        term = term_lookup(game=game, word=word)
        if term is not None and term not in found:
            found.append(term)
    folded = text.casefold()
    for term in glossary(game=game):
        if term in found:
            continue
        names = (term.term, *term.aliases)
        if any(re.search(rf"\b{re.escape(name.casefold())}\b", folded) for name in names):
            found.append(term)
    return found


def glossary_index() -> dict:
    """Every game's glossary as the glossary script reads them: ``{"games": {game: [term...]}}``."""
    return {"games": {game: [t.to_json() for t in glossary(game=game)] for game in GAME_TITLES}}
