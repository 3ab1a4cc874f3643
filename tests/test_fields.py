"""The fields of structured seeds: kept, shown in ``--json``, filters of the query language,
the paper's links in order, and carried by every export (tests/data/fields/)."""

from __future__ import annotations

import csv
import io
import json
import shutil

import pytest

from db import Library
from tests.db_support import DATA, copy_seeds

PARM = "0412d482992496cb"
MENTOR = "eb8c16cf3afbe389"
MTL_UE = "c057113414b26ea0"
S2_TRACK = "34b4a2c162f59198"
PAPERLIST = DATA / "fields" / "paperlists_sample.json"


@pytest.fixture(scope="module")
def fielded(tmp_path_factory):
    """The shipped seeds and the paper list of three of them, synced."""
    base = tmp_path_factory.mktemp("fields")
    folder = copy_seeds(base / "seeds")
    shutil.copy(PAPERLIST, folder / PAPERLIST.name)
    lib = Library([folder], base / "data")
    lib.sync()
    yield lib
    lib.close()


def _ids(lib: Library, query: str) -> set[str]:
    return {h.id for h in lib.search(query, limit=100).hits}


def test_a_paper_list_gives_decision_track_keywords_area_and_links(fielded):
    data = fielded.get(MENTOR).to_json()
    assert (data["decision"], data["track"], data["keywords"], data["area"]) == (
        "Oral", "main", ["reinforcement learning", "mixture of experts", "robotics"],
        "reinforcement_learning->deep_rl")
    assert (data["authors"][0], data["year"], data["venue"]) == ("Suning Huang", 2025, "ICML")
    # the paper's own page first, the code next, the abstract's other link, a search last
    assert [(link["kind"], link["url"]) for link in data["links"]] == [
        ("paper", "https://icml.cc/virtual/2025/poster/43793"),
        ("openreview", "https://openreview.net/forum?id=mentor0001"),
        ("pdf", "https://openreview.net/pdf?id=mentor0001"),
        ("code", "https://github.com/suninghuang19/mentor"),
        ("project", "https://suninghuang19.github.io/mentor_page/"),
        ("search", "https://scholar.google.com/scholar?q=MENTOR%3A+Mixture-of-Experts+Network+"
                   "with+Task-Oriented+Perturbation+for+Visual+Reinforcement+Learning")]
    s2 = fielded.get(S2_TRACK)
    assert s2.keywords == () and s2.links[:2] == [
        ("doi", "https://doi.org/10.5555/s2track.2025"),
        ("arxiv", "https://arxiv.org/abs/2501.01234")]
    assert fielded.get(MTL_UE).keywords == ("unlearnable examples", "multi-task learning")


def test_a_text_seeds_paper_links_to_its_code_else_to_a_search_for_its_first_words(fielded):
    parm = fielded.get(PARM)
    assert parm.links[0] == ("code", "https://github.com/Baijiong-Lin/PARM")
    assert parm.links[-1] == ("search", "https://scholar.google.com/scholar?q=Multi-objective+"
                              "test-time+alignment+aims+to+adapt+large+language+models+%28LLMs"
                              "%29+to+diverse+multi-dimensional+user+preferences+during")
    assert [kind for kind, _url in fielded.get("dff6e2c026d9cdf3").links] == ["search"]


@pytest.mark.parametrize(("query", "expected"), [
    ("decision:oral", {MENTOR}),
    ("status:spotlight", {MTL_UE}),  # paper lists call the decision "status"
    ("track:position", {S2_TRACK}),
    ('track:"position paper"', {S2_TRACK}),
    ("kw:robotics", {MENTOR}),
    ("kw:MULTI-TASK", {MTL_UE}),
    ("area:security", {MTL_UE}),
    ("decision:oral OR decision:poster", set()),  # filters all apply; OR joins words
    ("reinforcement decision:oral", {MENTOR}),
])
def test_field_filters_find_the_papers_whose_field_holds_the_value(fielded, query, expected):
    assert _ids(fielded, query) == expected


def test_a_field_filter_is_typed_back_in_the_effective_query(fielded):
    result = fielded.search('tracking -track:"position paper" year:>=2024')
    assert result.effective_query == 'tracking -track:"position paper" year:>=2024'
    assert S2_TRACK not in {h.id for h in result.hits}


def test_an_excluding_field_filter_keeps_the_papers_without_the_field(fielded):
    assert len(_ids(fielded, "-decision:oral")) == 34
    assert MENTOR not in _ids(fielded, "-kw:robotics") and PARM in _ids(fielded, "-kw:robotics")


def test_year_and_venue_read_the_collection_label_of_a_text_seed(fielded):
    assert len(_ids(fielded, "year:2025")) == 35
    assert len(_ids(fielded, "year:>=2024 venue:icml")) == 35
    assert _ids(fielded, "year:2020..2024") == set()
    assert _ids(fielded, "year:<2025") == set()
    assert _ids(fielded, "year:2026-2024") == _ids(fielded, "year:2025")
    assert fielded.search("year:>=2024..2026").notice.startswith("year:>=2024..2026 is no year")
    result = fielded.search("year:twenty")
    assert result.total == 35 and result.notice == (
        "year:twenty is no year; ignored (like year:2024, year:>=2023, year:2020..2023)")


def test_a_filter_on_a_field_no_paper_has_is_a_notice_not_zero_hits(tmp_path):
    with Library([copy_seeds(tmp_path / "seeds")], tmp_path / "data") as lib:
        lib.sync()
        result = lib.search("alignment track:main kw:llm")
        assert result.notice == ("no paper here has a track: track:main ignored; "
                                 "no paper here has keywords: kw:llm ignored")
        assert result.total == lib.search("alignment").total > 0
        assert lib.search("au:hinton").notice == "no paper here has authors: au:hinton ignored"
        assert lib.search("status:to-read").effective_query == "is:to-read"


def test_exports_carry_fields_notes_tags_and_the_paper_link(fielded):
    fielded.set_note(MENTOR, "compare with HC-SMoE")
    fielded.tag([MENTOR], ["moe", "rl"])
    try:
        out = io.StringIO()
        fielded.export("decision:oral", None, "csv", out)
        [row] = list(csv.DictReader(io.StringIO(out.getvalue())))
        assert {k: row[k] for k in ("decision", "track", "keywords", "area", "tags", "note",
                                    "url", "code_url")} == {
            "decision": "Oral", "track": "main",
            "keywords": "reinforcement learning; mixture of experts; robotics",
            "area": "reinforcement_learning->deep_rl", "tags": "moe rl",
            "note": "compare with HC-SMoE", "url": "https://icml.cc/virtual/2025/poster/43793",
            "code_url": "https://github.com/suninghuang19/mentor"}
        out = io.StringIO()
        fielded.export("decision:oral", None, "md", out)
        assert out.getvalue().splitlines()[3:7] == [
            "  - paper: <https://icml.cc/virtual/2025/poster/43793>",
            "  - code: <https://github.com/suninghuang19/mentor>",
            "  - tags: #moe #rl", "  - note: compare with HC-SMoE"]
        out = io.StringIO()
        fielded.export("decision:oral", None, "bib", out)
        bib = out.getvalue()
        for field in ("decision = {Oral}", "track = {main}", "note = {compare with HC-SMoE}",
                      "keywords = {reinforcement learning, mixture of experts, robotics}",
                      "pdf = {https://openreview.net/pdf?id=mentor0001}", "tags = {moe rl}"):
            assert f"  {field},\n" in bib
    finally:
        fielded.set_note(MENTOR, "")
        fielded.tag([MENTOR], ["moe", "rl"], remove=True)


def test_a_json_export_loads_elsewhere_with_its_collection_and_imports_its_marks(tmp_path):
    """Text seeds exported as JSON: as a seed file elsewhere the same papers in the same
    collection; ``marks import`` of it brings the statuses, notes and tags."""
    here = Library([copy_seeds(tmp_path / "seeds")], tmp_path / "here")
    here.sync()
    here.set_status([PARM], "to-read")
    here.set_note(PARM, "read the proofs")
    here.tag([PARM], ["align"])
    export = tmp_path / "moved" / "library.json"
    export.parent.mkdir()
    assert here.export_file(export) == 35
    with Library([export.parent], tmp_path / "there") as there:
        there.sync()
        assert there.collections() == {"ICML 2025": 35}
        assert {h.id for h in there.search("", limit=100).hits} == {
            h.id for h in here.search("", limit=100).hits}
        summary = there.import_marks(export.read_bytes())
        assert (len(summary.changed), summary.notes, summary.tags) == (1, 1, 1)
        parm = there.get(PARM)
        assert (parm.status, parm.note, parm.tags) == ("to-read", "read the proofs", ("align",))
        assert there.get(S2_TRACK).status == "new"
        # a mark made after the export is newer than the export's: a second import keeps it
        there.set_status([PARM], "read")
        assert there.import_marks(export.read_bytes()).changed == []
        assert there.get(PARM).status == "read"
    here.close()
    assert json.loads(export.read_text(encoding="utf-8"))["exported_at"].endswith("Z")


def test_links_given_in_the_forms_paper_lists_use_are_kept_by_kind(tmp_path):
    """An arXiv field holding the abstract page's URL or ``arXiv:ID``, a DOI given as
    ``doi:10...`` or as ``doi.org/10...`` without a scheme: each is the one link it names."""
    folder = tmp_path / "seeds"
    folder.mkdir()
    records = [
        {"title": "One", "abstract": "The first abstract of this list, about graph learning.",
         "arxiv": "https://arxiv.org/abs/2101.00001v2", "doi": "doi:10.1000/one"},
        {"title": "Two", "abstract": "The second abstract of this list, about vision models.",
         "eprint": "arXiv:2301.12345", "doi": "doi.org/10.1000/two"},
        {"title": "Three", "abstract": "The third abstract of this list, about speech models.",
         "arxiv_id": "arxiv: 2302.00002v3", "doi": "https://dx.doi.org/10.1000/three"}]
    (folder / "list.json").write_text(json.dumps(records), encoding="utf-8")
    with Library([folder], tmp_path / "data") as lib:
        lib.sync()
        links = {h.title: lib.get(h.id).links[:-1] for h in lib.search("", limit=10).hits}
    assert links == {
        "One": [("doi", "https://doi.org/10.1000/one"),
                ("arxiv", "https://arxiv.org/abs/2101.00001v2")],
        "Two": [("doi", "https://doi.org/10.1000/two"),
                ("arxiv", "https://arxiv.org/abs/2301.12345")],
        "Three": [("doi", "https://dx.doi.org/10.1000/three"),
                  ("arxiv", "https://arxiv.org/abs/2302.00002v3")]}


def test_an_export_without_its_time_imports_as_older_than_every_mark_here(tmp_path):
    """A JSON export written before exports had ``exported_at`` (or ``search --json``): its
    statuses, notes and tags fill the papers unmarked here; a mark made here stays."""
    out = io.StringIO()
    with Library([copy_seeds(tmp_path / "seeds")], tmp_path / "here") as here:
        here.sync()
        here.set_status([PARM], "to-read")
        here.set_note(PARM, "read the proofs")
        here.tag([PARM], ["align"])
        here.set_status([S2_TRACK], "read")
        here.export("", None, "json", out)
    doc = json.loads(out.getvalue())
    del doc["exported_at"]
    with Library([tmp_path / "seeds"], tmp_path / "there") as there:
        there.sync()
        there.set_status([S2_TRACK], "dismissed")
        summary = there.import_marks(json.dumps(doc).encode())
        assert (summary.invalid, len(summary.changed), summary.notes, summary.tags) == (
            0, 1, 1, 1)
        parm = there.get(PARM)
        assert (parm.status, parm.note, parm.tags) == ("to-read", "read the proofs", ("align",))
        assert there.get(S2_TRACK).status == "dismissed"


def test_a_list_written_as_a_literal_in_a_csv_cell_is_that_list(tmp_path):
    """CSV files written from data frames hold a list as its literal (``['a', 'b']`` or
    ``["a", "b"]``): the authors and keywords are its items, not pieces with brackets."""
    folder = tmp_path / "seeds"
    folder.mkdir()
    with (folder / "list.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["title", "abstract", "authors", "keywords"])
        writer.writerow(["One", "The first abstract of this list, about graph learning.",
                         "['Ann Lee', 'Bo Chen']", "['deep learning', \"it's robust\"]"])
        writer.writerow(["Two", "The second abstract of this list, about vision models.",
                         '["Cy Dee", "Di Eck"]', '["graphs", "gnn; message passing"]'])
        writer.writerow(["Three", "The third abstract of this list, about speech models.",
                         "[not a list", "[1, [2]]"])
    with Library([folder], tmp_path / "data") as lib:
        lib.sync()
        got = {h.title: (h.authors, lib.get(h.id).keywords)
               for h in lib.search("", limit=10).hits}
        assert got == {"One": (("Ann Lee", "Bo Chen"), ("deep learning", "it's robust")),
                       "Two": (("Cy Dee", "Di Eck"), ("graphs", "gnn; message passing")),
                       "Three": (("[not a list",), ("[1", "[2]]"))}
        assert lib.search("kw:robust").total == 1


def test_a_csv_export_read_as_a_seed_gives_no_decision_from_its_marks(tmp_path):
    """papertray's CSV export has a ``status`` column: the reader's mark (new, to-read...),
    which a paper list's ``status`` (Oral, Poster) is not."""
    with Library([copy_seeds(tmp_path / "seeds")], tmp_path / "here") as here:
        here.sync()
        here.set_status([PARM], "to-read")
        export = tmp_path / "moved" / "library.csv"
        export.parent.mkdir()
        assert here.export_file(export) == 35
    with Library([export.parent], tmp_path / "there") as there:
        there.sync()
        assert there.get(PARM).decision is None
        assert there.search("decision:new").notice.startswith("no paper here has a decision")


def test_a_keyword_with_and_in_it_is_one_keyword(tmp_path):
    """Keywords are separated by ``;`` or ``,``; " and " separates authors (BibTeX), not
    keywords: "datasets and benchmarks, robotics" is two keywords, not three pieces."""
    folder = tmp_path / "seeds"
    folder.mkdir()
    (folder / "list.json").write_text(json.dumps([
        {"title": "One", "abstract": "The first abstract of this list, about benchmarks.",
         "keywords": "datasets and benchmarks, large language models"},
        {"title": "Two", "abstract": "The second abstract of this list, about retrieval.",
         "keywords": "search and ranking", "authors": "Ann Lee and Bo Chen"}]),
        encoding="utf-8")
    (folder / "list.bib").write_text(
        "@inproceedings{a, title={Three}, keywords={vision and language, robotics},\n"
        "  abstract={The third abstract of this list, about robots that see and talk.}}\n",
        encoding="utf-8")
    with Library([folder], tmp_path / "data") as lib:
        lib.sync()
        got = {h.title: lib.get(h.id).keywords for h in lib.search("", limit=10).hits}
        assert got == {"One": ("datasets and benchmarks", "large language models"),
                       "Two": ("search and ranking",),
                       "Three": ("vision and language", "robotics")}
        assert lib.search("two").hits[0].authors == ("Ann Lee", "Bo Chen")
        assert lib.search("kw:vision_and").total == 0
        assert lib.search('kw:"vision and language"').total == 1


def test_a_link_with_spaces_or_quotes_is_one_web_address(tmp_path):
    """A link given with a space, a quote or angle brackets in it is kept percent-encoded: a
    Markdown export's ``<…>``, a terminal's hyperlink and a web browser each read it whole."""
    folder = tmp_path / "seeds"
    folder.mkdir()
    (folder / "list.json").write_text(json.dumps([
        {"title": "One", "abstract": "The first abstract of this list, about benchmarks.",
         "url": 'https://example.com/a b"c<d>', "doi": "10.5555/abc def"}]), encoding="utf-8")
    with Library([folder], tmp_path / "data") as lib:
        lib.sync()
        [hit] = lib.search("", limit=10).hits
        assert lib.get(hit.id).links[:2] == [
            ("paper", "https://example.com/a%20b%22c%3Cd%3E"),
            ("doi", "https://doi.org/10.5555/abc%20def")]
        out = io.StringIO()
        lib.export("", None, "md", out)
        assert "  - paper: <https://example.com/a%20b%22c%3Cd%3E>" in out.getvalue()
