"""A title that a catalogue lists twice, or that two catalogues both list, is one title: it
finds its abstract as it would alone; a title-only paper's marks, carried to a library where
the title found its abstract, land on that paper (tests/data/catalogue/ beside the shipped
seeds)."""

from __future__ import annotations

import json
import shutil

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


def test_marks_of_a_title_only_paper_carried_where_it_has_its_abstract_land_there(tmp_path):
    """Marked where the catalogue is alone, exported (a marks file or a JSON export), imported
    where the catalogue's title found its abstract: the paper with the abstract takes them."""
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(SAMPLE, alone / SAMPLE.name)
    with Library([alone], tmp_path / "a") as here:
        here.sync()
        [title_only] = [h.id for h in all_hits(here) if h.title == PARM_TITLE]
        here.set_status([title_only], "read")
        here.set_note(title_only, "from the catalogue")
        marks_file = json.dumps(here.export_marks()).encode()
        export = tmp_path / "export.json"
        here.export_file(export)
    both = copy_seeds(tmp_path / "both")
    shutil.copy(SAMPLE, both / SAMPLE.name)
    for name, data in (("marks", marks_file), ("export", export.read_bytes())):
        with Library([both], tmp_path / name) as there:
            there.sync()
            summary = there.import_marks(data)
            assert summary.orphans == 0, name
            parm = there.get(PARM)
            assert (parm.status, parm.note) == ("read", "from the catalogue"), name
