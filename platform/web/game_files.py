"""The files a game brings for the site, found in the game's own package.

A game's package (the folder of the module that defines its ``Game`` class) may hold a
``site/`` folder of data files, no Python:

- ``site/static/<game>/``: its board renderer (``board.js``) and its styles
  (``<game>.css``), served under ``/static/<game>/`` by :class:`GameStaticFinder`;
- ``site/templates/<game>/``: its template parts (``guide/blurb.html``, ``guide/lead.html``,
  ``guide/board.html``, ``home.html``), found by :class:`GameTemplateLoader`;
- ``site/rules.md`` and ``site/glossary.toml``: its rules document and its glossary, which
  the guide renders (``guide.selectors``).

Both the finder and the loader ask the registry at every look-up, so a game registered
after start-up (the tests' Highcard) is found like the engine's own.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

from django.contrib.staticfiles import utils
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.template.loaders.filesystem import Loader as FilesystemLoader
from django.utils._os import safe_join

from engine import games


def site_dir(name: str) -> Path | None:
    """The ``site/`` folder of game ``name``'s package, or None when it has none. A game
    class derived from another game's (a variant) has the looks of the first class in its
    ancestry whose package has a ``site/`` folder."""
    if name not in games:
        return None
    for cls in type(games[name]).__mro__:
        source = getattr(sys.modules.get(cls.__module__), "__file__", None)
        if source:
            folder = Path(source).resolve().parent / "site"
            if folder.is_dir():
                return folder
    return None


def site_file(name: str, relative: str) -> Path | None:
    """A file of a game's ``site/`` folder (``rules.md``), or None when it has none."""
    folder = site_dir(name)
    if folder is None:
        return None
    path = folder / relative
    return path if path.is_file() else None


def _site_subdirs(part: str) -> list[tuple[str, Path]]:
    out = []
    for name in list(games):
        folder = site_dir(name)
        if folder is not None and (folder / part).is_dir():
            out.append((name, folder / part))
    return out


def static_path(name: str, filename: str) -> str | None:
    """``<game>/<filename>`` as ``{% static %}`` names it, when the game ships that file."""
    folder = site_dir(name)
    if folder is None or not (folder / "static" / name / filename).is_file():
        return None
    return f"{name}/{filename}"


def board_script(name: str) -> str | None:
    """The static path of the game's board renderer (``<game>/board.js``), or None."""
    return static_path(name, "board.js")


def stylesheet(name: str) -> str | None:
    """The static path of the game's styles (``<game>/<game>.css``), or None."""
    return static_path(name, f"{name}.css")


def template_part(name: str, part: str) -> str | None:
    """The template ``<game>/<part>`` when the game ships it (``guide/lead.html``), else
    None: a page leaves out a part the game has not written, and never shows another's."""
    template = f"{name}/{part}"
    try:
        get_template(template)
    except TemplateDoesNotExist:
        return None
    return template


class GameStaticFinder(BaseFinder):
    """Static files from every registered game's ``site/static/`` folder."""

    def check(self, **kwargs):
        return []

    def find(self, path, find_all=False, **kwargs):
        find_all = find_all or kwargs.get("all", False)
        matches = []
        for _name, root in _site_subdirs("static"):
            try:
                candidate = safe_join(str(root), path)
            except Exception:  # a path that leaves the folder (SuspiciousFileOperation)
                continue
            if os.path.exists(candidate):
                if not find_all:
                    return candidate
                matches.append(candidate)
        return matches

    def list(self, ignore_patterns) -> Iterator[tuple[str, FileSystemStorage]]:
        for _name, root in _site_subdirs("static"):
            storage = FileSystemStorage(location=str(root))
            for path in utils.get_files(storage, ignore_patterns):
                yield path, storage


class GameTemplateLoader(FilesystemLoader):
    """Templates from every registered game's ``site/templates/`` folder."""

    def get_dirs(self):
        return [str(root) for _name, root in _site_subdirs("templates")]
