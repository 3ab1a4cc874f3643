"""Export (Markdown, CSV, JSON, BibTeX): the files' content, the CLI command, and the round trip
of JSON and BibTeX back into a fresh library as seed files."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import stat
import threading

import bibtexparser
import pytest

from db import Library
from db.seeds.render import render_plain
from tests.db_support import DATA, all_hits, copy_seeds

FORMATS = DATA / "formats"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """The shipped text seeds plus the structured fixtures, synced, PARM marked read."""
    base = tmp_path_factory.mktemp("mixed")
    folder = copy_seeds(base / "seeds")
    for file in FORMATS.iterdir():
        shutil.copy(file, folder / file.name)
    lib = Library([folder], base / "data")
    lib.sync()
    lib.set_status(["0412d482"], "read")
    lib.set_status(["5df4ef84"], "to-read")
    yield lib
    lib.close()


def _export(lib: Library, fmt: str, query: str = "", status: str | None = None) -> str:
    out = io.StringIO()
    lib.export(query, status, fmt, out)
    return out.getvalue()


@pytest.mark.parametrize("fmt", ["json", "bib", "csv"])
def test_round_trip_gives_the_same_papers(mixed, tmp_path, fmt):
    exported = tmp_path / "seeds" / f"export.{fmt}"
    exported.parent.mkdir()
    assert mixed.export_file(exported) == 38
    with Library([exported.parent], tmp_path / "data") as again:
        report = again.sync()
        assert report.problems == []
        before = {h.id: (h.title, h.name, h.headline, h.code_url) for h in all_hits(mixed)}
        after = {h.id: (h.title, h.name, h.headline, h.code_url) for h in all_hits(again)}
        assert after == before
        parm = again.get("0412d482")
        assert parm.authors == mixed.get("0412d482").authors
        assert parm.abstract_source == mixed.get("0412d482").abstract_source


def test_a_headline_cut_inside_latex_braces_still_makes_a_bibtex_entry(tmp_path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "a.txt").write_text(
        "Test 2025\n\nWe extend a result of Brown and Low [\\emph{Ann. Stat. 1996}] to any "
        "loss. The bound is tight.\n", encoding="utf-8")
    exported = tmp_path / "again" / "a.bib"
    exported.parent.mkdir()
    with Library([seeds], tmp_path / "data") as lib:
        lib.sync()
        (hit,) = lib.search("").hits
        assert hit.headline == r"We extend a result of Brown and Low [\emph{Ann."
        lib.export_file(exported)
    assert r"title = {We extend a result of Brown and Low [\emphAnn.}," in exported.read_text()
    with Library([exported.parent], tmp_path / "data2") as again:
        again.sync()
        assert [h.id for h in again.search("").hits] == [hit.id]


@pytest.mark.parametrize("fmt", ["json", "bib"])
def test_unpaired_braces_and_accents_survive_the_round_trip(tmp_path, fmt):
    """Real abstracts have a brace without its partner (``{Our analyses``, ``\\cite{x``,
    ``2017}``); the paper must load back with the same id, and an accented title the same."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    papers = [
        {"title": 'H\\"{o}lderian Error Bounds', "abstract": "First we show a bound. {Our "
         "analyses do not depend on the order of the blocks inside each cycle."},
        {"title": "Stray close", "abstract": "A bound of Indyk et al, 2017} while being much "
         "simpler than theirs, proved with \\cite{tpami and more."},
        {"title": "Only a {title"}, {"title": "Only a title}"},
        # a space on each side: both stay when the brace is left out, and the spot after them
        # was counted again in the text with the two spaces made one (another id)
        {"title": "Spaced", "abstract": "We study } unbalanced { braces, spaced out."}]
    (seeds / "p.json").write_text(json.dumps(papers), encoding="utf-8")
    exported = tmp_path / "again" / f"p.{fmt}"
    exported.parent.mkdir()
    with Library([seeds], tmp_path / "data") as lib:
        lib.sync()
        before = {h.id: h.title for h in all_hits(lib)}
        assert lib.export_file(exported) == 5
    with Library([exported.parent], tmp_path / "data2") as again:
        assert again.sync().problems == []
        after = {h.id: h.title for h in all_hits(again)}
    assert after.keys() == before.keys()
    # titles as shown (BibTeX's accents are read as the letters they write: H\\"{o}lderian is
    # Hölderian); a title-only paper's id ignores BibTeX's case braces, its text loses them
    assert [render_plain(after[i]) for i in before][:2] == [
        render_plain(before[i]) for i in before][:2] == ["Hölderian Error Bounds", "Stray close"]


def test_json_is_the_hit_shape_plus_the_abstract(mixed):
    data = json.loads(_export(mixed, "json", "au:weisen"))
    assert (data["query"], data["total"]) == ("au:weisen", 1)
    hit = data["hits"][0]
    assert (hit["id"], hit["status"], hit["year"]) == ("0412d482992496cb", "read", 2025)
    assert hit["abstract"].startswith("Multi-objective test-time alignment aims")
    assert hit["authors"][:2] == ["Baijiong Lin", "Weisen Jiang"]


def test_bibtex_entries_are_valid_with_stable_keys(mixed):
    text = _export(mixed, "bib")
    entries = {e["ID"]: e for e in bibtexparser.loads(text).entries}
    assert len(entries) == 38
    parm = entries["lin2025parm_0412d482"]
    assert parm["author"].startswith("Baijiong Lin and Weisen Jiang and")
    assert (parm["year"], parm["url"]) == ("2025", "https://icml.cc/virtual/2025/poster/43455")
    mtl = entries["2025mtlue_c0571134"]  # a text seed's paper: name and headline as its title
    assert mtl["title"].startswith("MTL-UE: Most existing unlearnable strategies")
    assert (mtl["titlesource"], mtl["booktitle"], mtl["year"]) == ("derived", "ICML", "2025")
    assert _export(mixed, "bib") == text  # the same keys at every export


def test_markdown_checklist_with_status_collection_and_code(mixed):
    lines = _export(mixed, "md", "PARM OR C-3PO").splitlines()
    assert lines[0] == "# papertray: 2 papers matching `PARM OR C-3PO`"
    assert lines[2:5] == [
        "- [x] **PARM: Multi-Objective Test-Time Alignment via Preference-Aware Autoregressive "
        "Reward Model** · International Conference on Machine Learning 2025 · "
        "Baijiong Lin, Weisen Jiang, Yuancheng Xu et al. · `0412d482` · read",
        "  - paper: <https://icml.cc/virtual/2025/poster/43455>",
        "  - code: <https://github.com/Baijiong-Lin/PARM>"]
    assert lines[5].startswith("- [ ] **C-3PO: Compact Plug-and-Play Proxy Optimization")
    assert lines[5].endswith("`5df4ef84` · to-read")


def test_csv_has_a_header_and_one_row_per_paper(mixed):
    rows = list(csv.DictReader(io.StringIO(_export(mixed, "csv", status="to-read"))))
    assert [(r["id"][:8], r["status"], r["authors"].split("; ")[0], r["venue"]) for r in rows] == [
        ("5df4ef84", "to-read", "Guoxin Chen", "ICML")]
    assert rows[0]["abstract"].startswith("Retrieval-augmented generation (RAG) systems face")


def test_cli_export_to_a_file_and_to_stdout(run_cli, tmp_path):
    assert run_cli("mark", "5df4", "--to-read").exit_code == 0
    out = tmp_path / "reading.md"
    result = run_cli("export", "--status", "to-read", "--format", "md", "-o", str(out))
    assert result.exit_code == 0
    assert result.stderr == f"exported 1 papers to {out}\n"
    assert out.read_text(encoding="utf-8").startswith("# papertray: 1 papers\n\n- [ ] ")
    listed = run_cli("export", "--format", "json", "-has:code", "multi-task")
    assert [h["short_id"] for h in json.loads(listed.stdout)["hits"]] == [
        "a38c128b", "07e557e9", "58f4bebc", "5f5de6c1"]


def test_cli_export_format_from_an_ending_in_capitals(run_cli, tmp_path):
    """``-o READING.CSV`` writes CSV, as ``reading.csv`` does (it wrote Markdown)."""
    out = tmp_path / "READING.CSV"
    assert run_cli("export", "-o", str(out)).exit_code == 0
    assert out.read_text(encoding="utf-8").startswith("id,title,name,headline,")


def test_cli_export_errors_are_one_line(run_cli, tmp_path):
    missing = tmp_path / "no" / "such" / "dir" / "x.bib"
    result = run_cli("export", "-o", str(missing))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: cannot write {missing}: No such file")
    assert not missing.parent.exists()
    bad = run_cli("export", "--format", "docx")
    assert bad.exit_code == 2


def test_cli_export_to_a_file_whose_name_starts_with_a_dash(run_cli, tmp_path, monkeypatch):
    """``-o -OR.md`` writes the file ``-OR.md``: an option's value is not a query word (it was
    marked as one, and ``-o -OR`` ended in a traceback, "embedded null byte"); a query word
    with a dash after it still excludes."""
    monkeypatch.chdir(tmp_path)
    result = run_cli("export", "--format", "json", "-o", "-OR.md", "-has:code", "multi-task")
    assert (result.exit_code, result.stderr) == (0, "exported 4 papers to -OR.md\n")
    hits = json.loads((tmp_path / "-OR.md").read_text(encoding="utf-8"))["hits"]
    assert [h["short_id"] for h in hits] == ["a38c128b", "07e557e9", "58f4bebc", "5f5de6c1"]
    status = run_cli("export", "--status", "-x", "PARM")
    assert status.exit_code == 2 and "'-x' is not one of" in status.stderr


@pytest.mark.parametrize("command", [("export", "--format", "json", "-o"), ("marks", "export")])
def test_exporting_into_a_pipe_writes_into_it_and_leaves_it_a_pipe(run_cli, tmp_path, command):
    """``-o /dev/stdout`` or a named pipe: written directly. Renaming a temporary file over it
    (as for a regular file) put a regular file where the pipe or device was (as root, in
    /dev), or failed."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    done = run_cli(*command, str(fifo))
    reader.join(timeout=30)
    assert done.exit_code == 0, done.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert json.loads(got[0])  # the whole document came through the pipe
    assert not (tmp_path / "pipe.partial").exists()


def test_exporting_through_a_symlink_replaces_its_target_not_the_link(mixed, tmp_path):
    real = tmp_path / "real.md"
    real.write_text("old\n")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    assert mixed.export_file(link) == 38
    assert link.is_symlink()
    assert real.read_text().startswith("# papertray: 38 papers")


def test_cli_export_to_dash_writes_standard_output_not_a_file_named_dash(papertray, tmp_path):
    """``-o -`` is standard output (a file named ``-`` was written in the working folder)."""
    done = papertray("export", "--format", "bib", "-o", "-", "PARM")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.startswith("@inproceedings{2025parm_0412d482,\n")
    assert not (tmp_path / "-").exists()


def test_cli_export_takes_the_format_from_the_output_files_ending(run_cli, tmp_path):
    """``-o refs.bib`` without ``--format`` writes BibTeX (it wrote a Markdown checklist);
    ``--format`` still wins over the ending."""
    bib, forced = tmp_path / "refs.bib", tmp_path / "forced.bib"
    assert run_cli("export", "-o", str(bib), "PARM").exit_code == 0
    assert bib.read_text(encoding="utf-8").startswith("@inproceedings{2025parm_0412d482,\n")
    assert run_cli("export", "--format", "csv", "-o", str(forced), "PARM").exit_code == 0
    assert forced.read_text(encoding="utf-8").startswith("id,title,name,headline,")
