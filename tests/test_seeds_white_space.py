"""White space in seeds: spaces, blank lines between abstracts, ids that ignore reflowing."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from pathlib import Path

import pytest

from db import Library
from db.seeds.decode import decode
from db.seeds.read import parse_file
from db.text import clean, paper_id
from tests.db_support import FILE_A, FILE_B, SHIPPED_SEEDS, all_hits

#: Every white space character that is not a plain space or a line break, with the word pair of
#: the first shipped abstract (PARM) it is put between in place of the space.
OTHER_SPACES = [
    ("\f", "adapt large"),           # form feed (a page break in PDF text)
    ("\v", "large language"),        # vertical tab (a line break in Word's text export)
    ("\x85", "user preferences"),    # NEL
    ("\x1e", "keeping LLMs"),        # record separator (str.split cuts there too)
    ("\u2028", "during inference"),  # line separator
    ("\u2029", "LLMs frozen"),       # paragraph separator
    ("\xa0", "diverse multi-dimensional"),  # NBSP
    ("\u2009", "Reward Models"),     # thin space (Zs)
    ("\u3000", "preference dimension"),  # ideographic space (Zs)
    ("\t", "test-time alignment"),
]


def _parm_abstract() -> str:
    return (SHIPPED_SEEDS / FILE_A).read_text(encoding="utf-8").split("\n\n")[1].strip()


def test_other_white_space_between_words_is_a_space(tmp_path):
    """A form feed, vertical tab, NEL, U+2028/U+2029, NBSP or another Zs space between two words
    of a real abstract keeps them two words (a form feed used to be dropped as a control
    character: "adapt\flarge" was indexed and shown as "adaptlarge"): the abstract reads and
    is indexed as with plain spaces, so its id is the plain abstract's and its marks stay."""
    plain = _parm_abstract()
    spaced = plain
    for char, pair in OTHER_SPACES:
        assert spaced.count(pair) >= 1, pair
        spaced = spaced.replace(pair, pair.replace(" ", char), 1)
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "spaces.txt").write_text("ICML 2025 Papers\n\n" + spaced + "\n", encoding="utf-8")
    collection, entries = parse_file(seeds / "spaces.txt", (seeds / "spaces.txt").read_bytes())
    assert [(collection, e.abstract_source, e.id, e.name) for e in entries] == [
        ("ICML 2025", plain, paper_id(plain), "PARM")]
    with Library([seeds], tmp_path / "data") as lib:
        lib.sync()
        for _char, pair in OTHER_SPACES:
            hits = lib.search(f'"{pair}"').hits  # the two words, side by side
            assert [h.id for h in hits] == [paper_id(plain)], pair
        index = sqlite3.connect(tmp_path / "data" / "index.sqlite")
        index.execute("CREATE VIRTUAL TABLE temp.words USING fts5vocab(main, papers_fts, row)")
        words = {w for (w,) in index.execute("SELECT term FROM temp.words")}
        index.close()
    # the index's words (porter stems): each pair is two words, never one run together
    assert {"adapt", "larg", "languag", "user", "prefer", "keep", "llm", "frozen", "reward",
            "model", "dimens", "divers"} <= words
    assert not {w for w in words if w.startswith(("adaptlarg", "largelanguag", "userprefer",
                                                  "keepingllm", "duringinfer", "llmsfrozen",
                                                  "rewardmodel", "preferencedimens"))}


def test_clean_makes_white_space_controls_spaces_and_drops_the_rest():
    assert clean("graph\fneural\vnetworks\x85for\x1cgraphs\x1fnow") == (
        "graph neural networks for graphs now")
    assert clean("keep\u2028line\u2029para\xa0nbsp") == "keep\u2028line\u2029para\xa0nbsp"
    assert clean("bell\x07 esc\x1b[2J del\x7f c1\x9b") == "bell esc[2J del c1"
    assert "graph neural" in decode(b"Header 2025\n\nA graph\x0cneural network.\n")


def test_a_mark_follows_its_paper_when_a_form_feed_becomes_a_space(tmp_path):
    """An abstract with a form feed (or, in a JSON Lines record, a lone CR) between two words
    had the id of its words run together ("adaptlarge"); read anew it has another id, and its
    mark and note move to it as for an edited abstract (re-attached by text). That is what
    happens to such a paper of an index built before when its seed file is read again (the
    file changes, or ``papertray sync --force``)."""
    parm = _parm_abstract()
    wudi = (SHIPPED_SEEDS / FILE_A).read_text(encoding="utf-8").split("\n\n")[2].strip()
    assert "models into" in wudi
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    text_seed, json_seed = seeds / "list.txt", seeds / "records.jsonl"

    def write(text_abstract: str, record_abstract: str) -> None:
        text_seed.write_text(f"ICML 2025 Papers\n\n{text_abstract}\n", encoding="utf-8")
        json_seed.write_text(json.dumps({"title": "WUDI", "abstract": record_abstract}) + "\n",
                             encoding="utf-8")

    old_parm = parm.replace("adapt large", "adaptlarge", 1)  # as the form feed left it
    old_wudi = wudi.replace("models into", "modelsinto", 1)  # as the lone CR left it
    write(old_parm, old_wudi)  # the papers as an index built before had them
    with Library([seeds], tmp_path / "data") as lib:
        lib.sync()
        assert {h.id for h in all_hits(lib)} == {paper_id(old_parm), paper_id(old_wudi)}
        lib.set_status([paper_id(old_parm)], "to-read")
        lib.set_note(paper_id(old_parm), "read the appendix")
        lib.set_status([paper_id(old_wudi)], "read")
        write(parm.replace("adapt large", "adapt\flarge", 1), wudi.replace("models into",
                                                                         "models\rinto", 1))
        report = lib.sync()
        assert (report.added, report.removed, report.reattached, report.orphans) == (2, 2, 2, 0)
        assert (lib.get(paper_id(parm)).status, lib.get(paper_id(parm)).note) == (
            "to-read", "read the appendix")
        assert lib.get(paper_id(wudi)).status == "read"
        assert [h.id for h in lib.search('"adapt large"').hits] == [paper_id(parm)]
        assert [h.id for h in lib.search('"models into"').hits] == [paper_id(wudi)]


@pytest.mark.parametrize("text, abstracts", [
    # a form feed or U+2029 within a line is a space: one abstract (as PDF text has them)
    ("We adapt models.\fWe test them.", ["We adapt models. We test them."]),
    ("We adapt models.\u2029We test them.", ["We adapt models. We test them."]),
    ("We adapt models.\u2029\u2029We test them.", ["We adapt models. We test them."]),
    ("We adapt models.\n\fWe test them.", ["We adapt models. We test them."]),
    # a line holding only white space (a form feed, U+2029, NBSP...) is a blank line: two
    ("We adapt models.\n\f\nWe test them.", ["We adapt models.", "We test them."]),
    ("We adapt models.\n\u2029\nWe test them.", ["We adapt models.", "We test them."]),
    ("We adapt models.\n\xa0 \nWe test them.", ["We adapt models.", "We test them."]),
])
def test_only_a_blank_line_starts_a_new_abstract(text, abstracts):
    """The seed format: abstracts are separated by blank lines, and a line with nothing but
    white space on it is blank. A form feed or paragraph separator inside a line is not a
    break between abstracts: the one U+2029 of the 87k corpus is in mid-sentence."""
    seed = ("NeurIPS 2019\n\n" + text + "\n").encode("utf-8")
    collection, entries = parse_file(Path("list.txt"), seed)
    assert (collection, [e.abstract_source for e in entries]) == ("NeurIPS 2019", abstracts)


def test_ids_ignore_whitespace_case_and_unicode_form():
    base = paper_id("We study Schrödinger bridges.")
    assert paper_id("  we   STUDY\nschrödinger\tbridges. ") == base
    assert paper_id("We study Schro\u0308dinger bridges.") == base  # decomposed ö (NFKC)
    assert paper_id("We study Schrödinger bridge.") != base
    assert len(base) == 16 and int(base, 16) >= 0


def test_reflowed_seed_file_keeps_every_id(library, seeds_copy, tmp_path):
    before = [h.id for h in all_hits(library)]
    text = (seeds_copy / FILE_B).read_text(encoding="utf-8")
    # re-wrap every abstract at 60 columns, Windows line endings, upper-case header
    paragraphs = text.split("\n\n")
    wrapped = [paragraphs[0].upper()] + [
        textwrap.fill(p, 60, initial_indent="  ", subsequent_indent=" \t", break_on_hyphens=False,
                      break_long_words=False) for p in paragraphs[1:]]
    (seeds_copy / FILE_B).write_bytes("\n\n\n".join(wrapped).replace("\n", "\r\n").encode())
    report = library.sync()
    assert (report.added, report.removed, report.changed) == (0, 0, 0)
    assert [h.id for h in all_hits(library)] == before
