"""A title that a catalogue lists twice, or that two catalogues both list, is one title: it
finds its abstract as it would alone (tests/data/catalogue/ beside the shipped seeds)."""

from __future__ import annotations

import json

from db import Library
from tests.db_support import DATA, all_hits, copy_seeds

SAMPLE = DATA / "catalogue" / "icml_catalogue_sample.jsonl"
PARM, PARM_TITLE = "0412d482992496cb", (
    "PARM: Multi-Objective Test-Time Alignment via Preference-Aware Autoregressive Reward Model")


def _parm_record() -> dict:
    records = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    return next(r for r in records if r["title"] == PARM_TITLE)


def _write(path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_a_title_listed_twice_in_one_catalogue_finds_its_abstract(tmp_path):
    seeds = copy_seeds(tmp_path / "seeds")
    parm = _parm_record()
    _write(seeds / "catalogue.jsonl", [parm, {**parm, "track": "a second listing"}])
    with Library([seeds], tmp_path / "data") as lib:
        report = lib.sync()
        titled = [h for h in all_hits(lib) if h.title]
        assert [(h.id, h.title) for h in titled] == [(PARM, PARM_TITLE)]
        assert lib.get(PARM).authors[0] == "Baijiong Lin"
        assert (report.matched, report.ambiguous) == (2, 0)


def test_a_title_two_catalogues_list_is_one_paper_with_its_abstract(tmp_path):
    seeds = copy_seeds(tmp_path / "seeds")
    parm = _parm_record()
    _write(seeds / "a.jsonl", [parm, {**parm}])
    _write(seeds / "b.jsonl", [{**parm, "decision": "Oral"}])
    with Library([seeds], tmp_path / "data") as lib:
        lib.sync()
        assert [h.id for h in all_hits(lib) if h.title] == [PARM]
        assert len(all_hits(lib)) == 35
