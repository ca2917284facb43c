"""The rules pages' parameter tables (each game's ``site/rules.md``, between ``<!-- params:begin -->`` and
``<!-- params:end -->``) match ``param_specs()``: every parameter, its default and its range,
so the docs can never drift from the one declaration."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import games

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def _rows(name: str) -> dict[str, list[str]]:
    text = (ENGINE / name / "site" / "rules.md").read_text(encoding="utf-8")
    table = text.split("<!-- params:begin -->", 1)[1].split("<!-- params:end -->", 1)[0]
    rows = {}
    for line in table.strip().splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0].strip("`")] = cells
    return rows


@pytest.mark.parametrize("name", ["tempofront", "conquest"])
def test_the_rules_page_lists_every_parameter_with_its_default_and_range(name):
    specs = games[name].param_specs()
    rows = _rows(name)
    assert list(rows) == list(specs), "the table lists every parameter, in declaration order"
    for spec in specs.values():
        cells = rows[spec.name]
        assert cells[1].strip("`") == str(spec.default), spec.name
        if spec.choices is None:
            assert (cells[2], cells[3]) == (str(spec.minimum), str(spec.maximum)), spec.name
        else:
            assert (cells[2], cells[3]) == ("", ""), spec.name
        if name == "conquest":
            assert cells[4] == ("yes" if spec.card_changeable else "no"), spec.name
