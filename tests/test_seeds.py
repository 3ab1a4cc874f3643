"""Parsing seed files: collections, entries, derived fields, hyphenation, decoding, ids."""

from __future__ import annotations

import codecs
import gzip
import json
import sqlite3
import textwrap
from pathlib import Path

import pytest
import sqlite_utils

from db import Library
from db.seeds.decode import DecodeError, decode
from db.seeds.dictionary import is_english_word
from db.seeds.entry import SeedError, collection_label
from db.seeds.plain import parse_text
from db.seeds.read import parse_file
from db.text import clean, paper_id, repair_hyphenation
from tests.db_support import FILE_A, FILE_B, SHIPPED_SEEDS, all_hits, first_words

# Every paper of the shipped seeds in seed order (file A, then the papers only in file B), by the
# first three words of its abstract, with the name it must get: the method/benchmark it
# introduces, or None when it introduces no name.
EXPECTED_NAMES = [
    ("Multi-objective test-time alignment", "PARM"),
    ("Model merging seeks", "WUDI-Merging"),
    ("Most existing unlearnable", "MTL-UE"),
    ("Early exits enable", None),
    ("3D multiple object", "S2-Track"),
    ("Visual deep reinforcement", "MENTOR"),
    ("Foundation models serve", None),
    ("In decision-making problems,", "MO-CBO"),
    ("Multi-sample aggregation strategies,", None),
    ("The Two-Stage Learning-to-Defer", None),
    ("Despite recent advancements", "M3DT"),
    ("Knowledge distillation typically", None),
    ("A canonical desideratum", None),
    ("The ability to", "BATI"),
    ("Large language models", None),  # "... exhibit remarkable task generalization"
    ("This work has", None),
    ("Large language models", "LMRL-Gym"),  # in both files
    ("Pre-trained generalist policies", "AMF"),  # in both files
    ("Bipartite ranking is", None),  # in both files
    ("Tensor regression is", "LoRT"),
    ("Advances in large", "Craftium"),
    ("Safe offline reinforcement", "SDQC"),
    ("Sparse Mixture-of-Experts (SMoE)", "HC-SMoE"),
    ("Developing AI agents", "MCU"),
    ("Multi-objective optimization (MOO)", "PHN-HVVS"),
    ("Vision Transformers (ViT)", "ExtPose"),
    ("Retrieval-augmented generation (RAG)", "C-3PO"),
    ("Most existing structured", "Olica"),
    ("We present a", None),
    ("Diplomacy is a", "DipLLM"),
    ("Multiple Instance Learning", None),
    ("Pre-trained interatomic potentials", "ELoRA"),
    ("Existing prompt-based approaches", "iDPA"),
    ("Boosting provides a", None),
    ("Molecular structure generation", None),
]

ISSUE_NAMES = [
    "PARM", "WUDI-Merging", "MTL-UE", "S2-Track", "MENTOR", "MO-CBO", "M3DT", "BATI", "LMRL-Gym",
    "AMF", "LoRT", "Craftium", "SDQC", "HC-SMoE", "MCU", "PHN-HVVS", "ExtPose", "C-3PO", "Olica",
    "DipLLM", "ELoRA", "iDPA",
]


def _parse(name: str):
    path = SHIPPED_SEEDS / name
    return parse_file(path, path.read_bytes())


# -- collections and counts ------------------------------------------------------------------

def test_both_shipped_headers_name_icml_2025():
    assert _parse(FILE_A)[0] == "ICML 2025"
    assert _parse(FILE_B)[0] == "ICML 2025"
    headers = [(SHIPPED_SEEDS / f).read_text(encoding="utf-8").splitlines()[0]
               for f in (FILE_A, FILE_B)]
    assert headers == ["ICML 2025 论文列表", "ICML 2025 Papers"]


@pytest.mark.parametrize(("header", "label"), [
    ("ICML 2025 Papers", "ICML 2025"),
    ("ICML 2025 论文列表", "ICML 2025"),
    ("NeurIPS 2024 accepted papers", "NeurIPS 2024"),
    ("Proceedings of ICLR 2023", "ICLR 2023"),
    ("Workshop 2024 Papers", "Workshop 2024 Papers"),  # "Workshop" is not a conference acronym
    ("Latin-1 Workshop", "Latin-1 Workshop"),
    ("中文论文列表", "中文论文列表"),
    ("My   reading    list", "My reading list"),
])
def test_collection_label(header, label):
    assert collection_label(header) == label


def test_shipped_seeds_are_38_entries_35_papers_2_files(library):
    stats = library.stats()
    assert stats == {
        "papers": 35, "entries": 38, "files": 2, "collections": {"ICML 2025": 35},
        "status": {"new": 35, "to-read": 0, "read": 0}, "orphan_marks": 0,
        "orphan_annotations": 0, "problems": [],
    }
    assert [len(_parse(FILE_A)[1]), len(_parse(FILE_B)[1])] == [19, 19]


def test_exactly_three_papers_have_two_sources(library):
    shared = [h for h in all_hits(library) if len(h.sources) == 2]
    assert [(h.name, [(s.file, s.position) for s in h.sources]) for h in shared] == [
        ("LMRL-Gym", [(FILE_A, 17), (FILE_B, 7)]),
        ("AMF", [(FILE_A, 18), (FILE_B, 9)]),
        (None, [(FILE_A, 19), (FILE_B, 11)]),
    ]
    assert first_words(library.get(shared[2].id).abstract_source) == "Bipartite ranking is"
    assert sum(len(h.sources) for h in all_hits(library)) == 38


def test_index_tables_hold_the_seeds(library):
    db = sqlite_utils.Database(library.paths.index)
    assert db["papers"].count == 35
    assert db["sources"].count == 38
    assert [(r["display"], r["status"], r["entries"], r["collection"])
            for r in db.query("SELECT * FROM files ORDER BY display")] == [
        (FILE_A, "loaded", 19, "ICML 2025"), (FILE_B, "loaded", 19, "ICML 2025")]


# -- derived fields --------------------------------------------------------------------------

def test_every_paper_gets_exactly_its_name(library):
    got = []
    for hit in all_hits(library):
        got.append((first_words(library.get(hit.id).abstract_source), hit.name))
    assert got == EXPECTED_NAMES


def test_the_issue_names_are_all_found(library):
    assert sorted(h.name for h in all_hits(library) if h.name) == sorted(ISSUE_NAMES)


def test_parse_gives_the_same_names_as_the_index():
    _, a = _parse(FILE_A)
    _, b = _parse(FILE_B)
    names = [e.name for e in a] + [e.name for e in b if e.position not in (7, 9, 11)]
    assert names == [name for _, name in EXPECTED_NAMES]


def test_headline_is_the_first_sentence(library):
    by_name = {h.name: h for h in all_hits(library)}
    assert by_name["PARM"].headline == (
        "Multi-objective test-time alignment aims to adapt large language models (LLMs) to diverse "
        "multi-dimensional user preferences during inference while keeping LLMs frozen.")
    assert by_name["Olica"].headline == (
        "Most existing structured pruning methods for Large Language Models (LLMs) require "
        "substantial computational and data resources for retraining to reestablish the corrupted "
        "correlations, making them prohibitively expensive.")
    this_work = [h for h in all_hits(library) if h.headline.startswith("This work")]
    assert [h.headline for h in this_work] == ["This work has two contributions."]


def test_long_first_sentence_is_cut_at_a_word_with_an_ellipsis(library):
    m3dt = next(h for h in all_hits(library) if h.name == "M3DT")
    assert m3dt.headline == (
        "Despite recent advancements in offline multi-task reinforcement learning (MTRL) have "
        "harnessed the powerful capabilities of the Transformer architecture, most approaches "
        "focus on a limited number of tasks, with scaling to extremely…")


def test_code_urls(library):
    got = {(h.name or first_words(library.get(h.id).abstract_source)): h.code_url
           for h in all_hits(library) if h.code_url}
    assert got == {
        "PARM": "https://github.com/Baijiong-Lin/PARM",
        "WUDI-Merging": "https://github.com/nathanielyvo/WUDI-Merging",
        "MTL-UE": "https://github.com/yuyi-sd/MTL-UE",
        "MENTOR": "https://suninghuang19.github.io/mentor_page/",  # a project page: the only link
        "Foundation models serve": "https://github.com/aimagelab/TransFusion",  # no trailing "."
        "HC-SMoE": "https://github.com/wazenmai/HC-SMoE",
        "MCU": "https://github.com/CraftJarvis/MCU",
        "PHN-HVVS": "https://github.com/buptcmm/phnhvvs",
        "ELoRA": "https://github.com/hyjwpk/ELoRA",
    }
    foundation = next(h for h in all_hits(library) if h.short_id == "1c07dcbf")
    assert library.get(foundation.id).urls == ("https://github.com/aimagelab/TransFusion",)


def test_code_url_prefers_a_code_host_over_a_project_page():
    _, entries = parse_text(
        "Header 2025\n\nWe propose FooNet. Project page https://foo.example.org/net, code at "
        "https://gitlab.com/foo/net.\n", "x")
    assert entries[0].urls == ("https://foo.example.org/net", "https://gitlab.com/foo/net")
    assert entries[0].code_url == "https://gitlab.com/foo/net"
    assert entries[0].name == "FooNet"


def test_a_name_written_with_a_combining_accent_is_whole():
    """A name whose accent is a combining mark (e + U+0301, as macOS file names and some PDF
    extractors write it) is the whole name, as with the accented letter: it was cut at the
    mark ("CaféNet" named "Cafe")."""
    for e_acute in ("\u00e9", "e\u0301"):
        _, entries = parse_text(
            f"Header 2025\n\nWe introduce Caf{e_acute}Net, a model of coffee shops.\n", "x")
        assert entries[0].name == "CaféNet"


# -- hyphenation -----------------------------------------------------------------------------

@pytest.mark.parametrize(("source", "repaired"), [
    ("that re- quires both", "that requires both"),
    ("LLMs to Diplo- macy remains", "LLMs to Diplomacy remains"),
    ("experts for large- scale architectures", "experts for large-scale architectures"),
    ("from single- and multi-agent tasks", "from single- and multi-agent tasks"),
    ("sample- and communication-efficient", "sample- and communication-efficient"),
    # a soft hyphen (or a PDF extractor's "(cid:173)" for it) marks a broken word, any word
    ("a plug in clas(cid:173) sification technique", "a plug in classification technique"),
    ("Bayesian framework for match(cid:173)ing hierarchical", "Bayesian framework for matching "
     "hierarchical"),
    ("frob\u00ad nicating", "frobnicating"),
])
def test_hyphenation_is_repaired_only_with_evidence(source, repaired):
    assert repair_hyphenation(source, is_english_word) == repaired


def test_a_word_broken_by_a_soft_hyphen_is_found_whole(tmp_path):
    from db import Library

    seeds = tmp_path / "seeds"
    seeds.mkdir()
    text = ("A new class of plug in classification techniques have recently been de(cid:173) "
            "veloped. A plug in clas(cid:173) sification technique (PaCT) is a method.")
    (seeds / "old.txt").write_text("NIPS 1998\n\n" + text + "\n", encoding="utf-8")
    library = Library([seeds], tmp_path / "data")
    library.sync()
    found = library.search("developed PaCT")
    assert [h.id for h in found.hits] == [paper_id(text)]  # the id is the seed text's, as ever
    assert "been developed. A plug in classification" in library.get(paper_id(text)).abstract_markup


def test_display_text_of_the_seeds_is_repaired_and_the_source_kept(library):
    dipllm = library.get(next(h.id for h in all_hits(library) if h.name == "DipLLM"))
    assert "re- quires" in dipllm.abstract_source and "Diplo- macy" in dipllm.abstract_source
    assert "requires" in dipllm.abstract_markup and "Diplomacy remains" in dipllm.abstract_markup
    assert "re- quires" not in dipllm.abstract_markup
    assert "Diplo- macy" not in dipllm.to_json()["abstract"]
    hc = library.get(next(h.id for h in all_hits(library) if h.name == "HC-SMoE"))
    assert "for large-scale architectures" in hc.abstract_markup
    craftium = library.get(next(h.id for h in all_hits(library) if h.name == "Craftium"))
    assert "rich 3D single- and multi-agent environments" in craftium.abstract_markup


# -- decoding --------------------------------------------------------------------------------

TEXT = "Header 2025\n\nWe study Schrödinger bridges for data.\n\nA second abstract.\n"


def test_utf8_bom_and_crlf():
    data = codecs.BOM_UTF8 + TEXT.replace("\n", "\r\n").encode("utf-8")
    assert decode(data) == TEXT


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_with_bom(codec):
    bom = codecs.BOM_UTF16_LE if codec.endswith("le") else codecs.BOM_UTF16_BE
    assert decode(bom + TEXT.encode(codec)) == TEXT
    collection, entries = parse_file(Path("x.txt"), bom + TEXT.replace("\n", "\r\n").encode(codec))
    assert collection == "Header 2025"
    assert [e.abstract_source for e in entries] == [
        "We study Schrödinger bridges for data.", "A second abstract."]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom(codec):
    """UTF-16 with no byte-order mark (written by Python's ``encode("utf-16-le")``, some
    exporters and PowerShell pipes): every other byte of its Latin text is NUL. It was
    refused as "binary data (NUL bytes), not text"."""
    data = TEXT.replace("\n", "\r\n").encode(codec)
    assert decode(data) == TEXT
    collection, entries = parse_file(Path("x.txt"), data)
    assert collection == "Header 2025"
    assert [e.abstract_source for e in entries] == [
        "We study Schrödinger bridges for data.", "A second abstract."]
    records = '[{"title": "T", "abstract": "We study Schrödinger bridges for data."}]'
    assert [e.title for e in parse_file(Path("x.json"), records.encode(codec))[1]] == ["T"]


def test_latin1_and_cp1252_fallback():
    assert decode(TEXT.encode("latin-1")) == TEXT
    assert decode("It’s “quoted” — 5 €.\n".encode("cp1252")) == "It’s “quoted” — 5 €.\n"
    # 0x81 is undefined in cp1252: Latin-1 takes over (and the C1 control is dropped)
    assert decode(b"a caf\xe9 with a \x81 byte that cp1252 lacks") == (
        "a café with a  byte that cp1252 lacks")


def test_lone_cr_line_endings():
    assert decode(TEXT.replace("\n", "\r").encode()) == TEXT


def test_nul_control_and_escape_bytes_are_removed():
    data = b"Header 2025\n\nA \x00clean\x07 abstract \x1b[2Jwith\x1b]0;title\x07 escapes\x7f.\n"
    assert decode(data) == "Header 2025\n\nA clean abstract [2Jwith]0;title escapes.\n"
    assert clean("tab\there \u202eevil\u202c") == "tab here evil"


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


@pytest.mark.parametrize("junk", [
    bytes(range(256)) * 20,
    gzip.compress(b"We propose a method. " * 200, mtime=0),
    b"\x00\x01\x02\x03" * 300,
    b"\x89PNG\r\n\x1a\n" + bytes(2000),
])
def test_binary_junk_is_reported(junk):
    with pytest.raises(DecodeError):
        decode(junk)
    with pytest.raises(SeedError) as err:
        parse_file(Path("junk.txt"), junk)
    assert err.value.status == "error"
    assert str(err.value) in ("binary data (NUL bytes), not text", "binary data, not text")


def test_binary_junk_next_to_the_seeds_is_reported_and_the_rest_loads(seeds_copy, data_dir):
    (seeds_copy / "junk.txt").write_bytes(bytes(range(256)) * 20)
    (seeds_copy / "utf16.txt").write_bytes(codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"))
    with Library([seeds_copy], data_dir) as lib:
        report = lib.sync()
        assert [(f.path, f.status, f.entries, f.reason) for f in report.files] == [
            (FILE_A, "loaded", 19, ""), (FILE_B, "loaded", 19, ""),
            ("junk.txt", "error", 0, "binary data, not text"),
            ("utf16.txt", "loaded", 2, ""),
        ]
        assert report.papers == 37
        assert lib.stats()["problems"] == [
            {"file": "junk.txt", "reason": "binary data, not text"}]
        assert lib.stats()["collections"] == {"ICML 2025": 35, "Header 2025": 2}
        assert [h.headline for h in lib.search("schrodinger").hits] == [
            "We study Schrödinger bridges for data."]


def test_empty_and_header_only_texts_are_empty():
    with pytest.raises(SeedError) as err:
        parse_file(Path("e.txt"), b"  \n\n \r\n")
    assert (err.value.status, str(err.value)) == ("empty", "empty file")
    with pytest.raises(SeedError) as err:
        parse_file(Path("h.txt"), b"ICML 2025 Papers\n\n\n")
    assert (err.value.status, str(err.value)) == ("empty", "header only, no abstracts")


def test_a_file_without_a_header_is_named_after_the_file():
    collection, entries = parse_text(
        "We propose a new method for everything, and it works very well indeed.\n\nAnother.\n",
        "my-list")
    assert collection == "my-list"
    assert [e.position for e in entries] == [1, 2]


# -- stable ids ------------------------------------------------------------------------------

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


@pytest.mark.parametrize(("abstract", "name"), [
    ("We propose Mask2CAD, a CAD-based approach to retrieving shapes.", "Mask2CAD"),
    ("We propose a CAD-based retrieval method for 3D shapes from images.", None),
    ("We introduce LLM-driven planning for household robots.", None),
    ("We present WUDI-Merging, a data-free way to merge models.", "WUDI-Merging"),
])
def test_a_hyphenated_description_is_no_name(abstract, name):
    """"CAD-based" describes a method; taken as its name it outranked the paper's own title."""
    from db.seeds.derive import method_name
    from db.seeds.dictionary import is_english_word

    assert method_name(abstract, is_english_word) == name


def _derivation_texts() -> list[str]:
    from tests.db_support import ODD_SEEDS

    texts = []
    for f in [*SHIPPED_SEEDS.glob("*.txt"), *ODD_SEEDS.glob("*.txt")]:
        try:
            texts += [e.abstract_markup for e in parse_file(f, f.read_bytes())[1]]
        except SeedError:
            continue
    return texts


def test_the_one_scan_name_search_equals_the_sentence_by_sentence_one():
    """method_name scans the text once for introducing verbs (str.find of their stems in ASCII
    text) instead of once per sentence: the same names, and the same verb matches."""
    from db.seeds import derive
    from db.text import one_line

    texts = _derivation_texts()
    names = {}
    for text in texts:
        plain = one_line(derive._strip_markup(text))
        assert [m.span() for m in derive._triggers(plain)] == [
            m.span() for m in derive._TRIGGER_RE.finditer(plain)]
        names[text] = derive.method_name(text, is_english_word)
        assert names[text] == derive._method_name_by_sentence(plain, is_english_word)
    assert {"PARM", "WUDI-Merging", "S2-Track", "C-3PO"} <= set(names.values())
    for odd in ("We PROPOSE Named-X2 here. It is Called BuiltIn3, and coined as Dub4.",
                "Intro. We designed (ABCD) the Super Fast Thing (SFT2) model, termed Q9x.",
                "Ünïcode wé prοpose X9Z and call it Ωmega3."):
        plain = one_line(odd)
        assert [m.span() for m in derive._triggers(plain)] == [
            m.span() for m in derive._TRIGGER_RE.finditer(plain)]
        assert derive.method_name(odd, is_english_word) == derive._method_name_by_sentence(
            plain, is_english_word)
