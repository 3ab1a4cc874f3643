"""Seed files with fields (JSON, JSON Lines, CSV/TSV, BibTeX): parsing, merging with text seeds,
authors in search, and the shared corpora when PAPERTRAY_CORPORA points at them."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from db import Library
from db.seeds.bibtex import unbrace
from db.seeds.entry import SeedError
from db.seeds.formats import title_id
from db.seeds.read import parse_file
from db.text import paper_id
from tests.db_support import DATA, all_hits, copy_seeds, corpus_file

FORMATS = DATA / "formats"
PARM = "0412d482992496cb"
PARM_TITLE = ("PARM: Multi-Objective Test-Time Alignment via Preference-Aware Autoregressive "
              "Reward Model")
K2VAE = ("$K^2$VAE: A Koopman-Kalman Enhanced Variational AutoEncoder for Probabilistic Time "
         "Series Forecasting")
WHO = ('"Who experiences large model decay and why?" A Hierarchical Framework for Diagnosing '
       "Heterogeneous Performance Drift")


def _parse(name: str):
    path = FORMATS / name
    skipped: list[str] = []
    collection, entries = parse_file(path, path.read_bytes(), skipped)
    return collection, entries, skipped


def test_json_object_holding_a_list_of_papers():
    collection, entries, skipped = _parse("icml_sample.json")
    assert collection == "ICML 2025"
    assert [(e.id[:8], e.title[:8]) for e in entries] == [
        ("0412d482", "PARM: Mu"), ("722b41c7", "Craftium"), (title_id(K2VAE)[:8], "$K^2$VAE")]
    parm = entries[0]
    assert parm.id == PARM  # the id of the same abstract in the shipped text seed
    assert parm.authors == ("Baijiong Lin", "Weisen Jiang", "Yuancheng Xu", "Hao Chen",
                            "YINGCONG CHEN")
    assert (parm.year, parm.venue, parm.code_url) == (
        2025, "ICML", "https://github.com/Baijiong-Lin/PARM")
    assert parm.urls == ("https://icml.cc/virtual/2025/poster/43455",
                         "https://github.com/Baijiong-Lin/PARM")
    assert entries[1].authors == ("Mikel Malagón", "Josu Ceberio", "Jose A Lozano")
    assert (entries[2].abstract_markup, entries[2].headline) == ("", "")
    assert skipped == ["1 record(s) with no title or abstract left out: 4"]


def test_json_lines_authors_as_one_string_and_a_record_without_title():
    _, entries, skipped = _parse("icml_sample.jsonl")
    assert [e.title for e in entries][1:] == [WHO, None]
    assert entries[0].authors[:2] == ("Guoxin Chen", "Minpeng Liao")
    assert entries[1].authors[-1] == "Jean Feng"
    assert (entries[2].id[:8], entries[2].name) == ("88f8a6f8", "LMRL-Gym")
    assert entries[2].year == 2025
    assert skipped == []


def test_gzip_json_lines_load_like_the_plain_file(tmp_path):
    packed = tmp_path / "sample.jsonl.gz"
    packed.write_bytes(gzip.compress((FORMATS / "icml_sample.jsonl").read_bytes()))
    assert parse_file(packed, packed.read_bytes()) == _parse("icml_sample.jsonl")[:2]


def test_csv_and_tsv():
    _, csv_entries, _ = _parse("icml_sample.csv")
    assert [e.title[:7] for e in csv_entries] == ["MENTOR:", '"Who ex']
    assert csv_entries[0].id == paper_id(csv_entries[0].abstract_source)
    assert csv_entries[0].authors[-1] == "Huazhe Xu"
    assert csv_entries[1].id == title_id(WHO)
    assert csv_entries[1].urls == ("https://icml.cc/virtual/2025/poster/45315",)
    _, tsv_entries, _ = _parse("icml_sample.tsv")  # capitalised header names
    assert [(e.id[:8], e.authors[0]) for e in tsv_entries] == [("722b41c7", "Mikel Malagón")]


def test_bibtex_names_braces_strings_and_links():
    collection, entries, _ = _parse("icml_sample.bib")
    parm, k2vae, attention = entries
    assert parm.id == PARM and parm.title == PARM_TITLE
    assert parm.authors == ("Baijiong Lin", "Weisen Jiang", "Yuancheng Xu", "Hao Chen",
                            "YINGCONG CHEN")
    assert parm.venue == "International Conference on Machine Learning"  # @string expanded
    assert k2vae.title == K2VAE and k2vae.id == title_id(K2VAE)
    assert attention.authors[6] == "Łukasz Kaiser"  # {\L}ukasz rendered
    assert attention.urls == ("https://doi.org/10.48550/arXiv.1706.03762",
                              "https://arxiv.org/abs/1706.03762")
    assert (attention.year, collection) == (2017, "International Conference on Machine Learning "
                                                  "2025")


@pytest.mark.parametrize(("text", "plain"), [
    ("{PARM}: Multi {Objective}", "PARM: Multi Objective"),
    (r"\emph{Deep} $x^{2}$ nets", r"\emph{Deep} $x^{2}$ nets"),
    (r"Q\&A for {GPT}", r"Q\&A for GPT"),
])
def test_bibtex_case_braces_are_dropped_latex_arguments_kept(text, plain):
    assert unbrace(text) == plain


def test_title_ids_never_equal_abstract_ids_and_ignore_latex_escapes():
    assert title_id("Attention Is All You Need") != paper_id("Attention Is All You Need")
    assert title_id(r"Q\&A with {BERT}") == title_id("Q&A with BERT")


def test_content_decides_when_the_ending_does_not(tmp_path):
    named = tmp_path / "papers.txt"
    shutil.copy(FORMATS / "icml_sample.json", named)
    assert [e.id for e in parse_file(named, named.read_bytes())[1]] == [
        e.id for e in _parse("icml_sample.json")[1]]
    bib = tmp_path / "refs.txt"
    shutil.copy(FORMATS / "icml_sample.bib", bib)
    assert parse_file(bib, bib.read_bytes())[1][0].title == PARM_TITLE


@pytest.mark.parametrize(("name", "data", "reason"), [
    ("broken.json", b'[{"title": "A"}, {"title": ', "not valid JSON: Expecting value: line 1"),
    ("broken.jsonl", b"{nope\n{also not\n", "not valid JSON Lines (line 1: Expecting"),
    ("numbers.json", b"[1, 2, 3]", "no record with a title or an abstract"),
    ("scalar.json", b'"just a string"', "JSON holds no list of papers"),
    ("nohead.csv", b"name,year\nPARM,2025\n", "the header row has no 'title' or 'abstract'"),
    ("empty.bib", b"@comment{nothing here}\n", "no BibTeX entry could be read"),
    ("bomb.json.gz", b"not gzip at all", "not a readable gzip file"),
    # (was "cannot parse: maximum recursion depth exceeded while decoding a JSON array from a
    # unicode string")
    pytest.param("deep.json", b"[" * 100_000 + b"]" * 100_000,
                 "not valid JSON: nested too deeply", id="deep.json"),
])
def test_broken_files_are_one_reason(name, data, reason):
    with pytest.raises(SeedError) as caught:
        parse_file(Path(name), data)
    assert str(caught.value).startswith(reason)


@pytest.mark.parametrize("name", ["bomb.jsonl.gz", "bomb.txt.gz"])
def test_a_gzip_bomb_of_binary_is_refused_from_its_start(name):
    """A gzip of zeros (64 MiB from 64 kB): refused as binary from its first block instead of
    being expanded whole first (1 GiB of zeros took 4.4 s and 1 GiB of memory to refuse)."""
    import tracemalloc

    bomb = gzip.compress(bytes(64 << 20), mtime=0)
    tracemalloc.start()
    try:
        with pytest.raises(SeedError) as caught:
            parse_file(Path(name), bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(caught.value) == "binary data (NUL bytes), not text"
    assert peak < 8 << 20


def test_a_null_in_a_json_list_is_a_record_with_no_title_or_abstract():
    """It is valid JSON: it was said to be "invalid JSON"."""
    skipped: list[str] = []
    _, entries = parse_file(Path("x.json"), b'[null, {"abstract": "We study Foo."}, 7]', skipped)
    assert [e.abstract_source for e in entries] == ["We study Foo."]
    assert skipped == ["2 record(s) with no title or abstract left out: 1, 3"]


@pytest.mark.parametrize("data", [
    b"title;abstract\nSemi;We propose SemiNet, a model; it is small.\n",
    b"Title;Abstract;Year\r\nSemi;\"We propose SemiNet, a model; it is small.\";2024\r\n",
    b"title,abstract\nSemi,\"We propose SemiNet; a model, it is small.\"\n",
])
def test_the_csv_delimiter_is_the_one_of_the_header_row(data):
    """A semicolon-separated export (Excel in many locales) whose abstracts have commas: the
    delimiter sniffed from the text was a comma, and the file was refused ("the header row has
    no 'title' or 'abstract' column")."""
    _, [entry] = parse_file(Path("x.csv"), data)
    assert entry.title == "Semi"
    assert entry.abstract_source.startswith("We propose SemiNet")


def test_bibtex_accents_are_letters():
    """BibTeX writes accented letters as LaTeX accents (``{\\"u}``, ``\\'{e}``, ``\\v{c}``):
    they are the letters. They were shown as written, braces dropped: "J\\"org M\\"uller"."""
    bib = (r'@article{k, title = {{\"U}ber {\'E}t\'e and \v{C}ech na\"{\i}ve},'
           r' author = {M{\"u}ller, J{\"o}rg and Fran\c{c}ois D\`{e}s and {\AA}se Str{\o}m},'
           r' abstract = {We propose \"UberNet, a na\"ive caf\'e model, 15\% better.}}')
    _, [entry] = parse_file(Path("x.bib"), bib.encode())
    assert entry.title == "Über Été and Čech naïve"
    assert entry.authors == ("Jörg Müller", "François Dès", "Åse Strøm")
    assert entry.abstract_source == r"We propose ÜberNet, a naïve café model, 15\% better."


def test_a_bad_json_line_is_left_out_and_said(tmp_path):
    lines = (FORMATS / "icml_sample.jsonl").read_bytes().split(b"\n")
    skipped: list[str] = []
    _, entries = parse_file(Path("x.jsonl"), b"\n".join([lines[0], b"{oops", *lines[1:]]),
                            skipped)
    assert len(entries) == 3
    assert skipped == ["1 line(s) with invalid JSON left out: 2"]


def test_a_json_lines_gzip_cut_short_loads_its_complete_lines(tmp_path):
    """A download stopped mid-stream: the papers before the cut load, the line says so."""
    records = [json.dumps({"title": f"Paper {n}", "abstract": f"Abstract {n}: {n * n} {n ** 3}"})
               for n in range(3000)]
    packed = gzip.compress("\n".join(records).encode())
    cut = tmp_path / "download.jsonl.gz"
    cut.write_bytes(packed[:len(packed) // 2])
    lib = Library([cut], tmp_path / "data")
    try:
        [line] = lib.sync().files
        read = int(line.reason.removeprefix("the gzip file is cut short: its first ")
                   .removesuffix(" lines read"))
        assert (line.status, line.entries) == ("loaded", read)
        assert 500 < read < 3000
        assert lib.counts()["all"] == read
    finally:
        lib.close()


def test_an_abstract_longer_than_the_csv_field_limit_loads(tmp_path):
    """csv's default field limit is 128 KiB: one long field must not reject the whole file."""
    seeds = tmp_path / "long.csv"
    seeds.write_text('title,abstract\nLong one,"' + "words " * 40_000 + '"\nShort one,fine\n')
    _, entries = parse_file(seeds, seeds.read_bytes())
    assert [e.title for e in entries] == ["Long one", "Short one"]


def test_a_bibtex_entry_the_parser_cannot_read_is_named_not_silently_lost(tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text("@string{icml = {ICML}}\n@comment{a {braced} comment}\n"
                   "@preamble{{\\newcommand{\\x}{y}}}\n"
                   "@article{good1, title={Before}, year=2021}\n"
                   "@article{broken, title={Unbalanced {brace title}, year=2022}\n"
                   "@inproceedings{good2, title={After}, booktitle=icml, year=2023}\n",
                   encoding="utf-8")
    skipped: list[str] = []
    _, entries = parse_file(bib, bib.read_bytes(), skipped)
    assert [e.title for e in entries] == ["Before", "After"]
    assert skipped == ["1 entry(ies) that could not be read (unbalanced braces?) left out: "
                       "broken"]


def test_a_huge_number_or_nan_in_some_field_does_not_reject_the_file(tmp_path):
    seeds = tmp_path / "odd.json"
    seeds.write_text('[{"title": "Big id", "openreview_number": ' + "9" * 5000 + '},'
                     ' {"title": NaN, "abstract": Infinity}, {"title": "After", "year": 2024}]')
    skipped: list[str] = []
    _, entries = parse_file(seeds, seeds.read_bytes(), skipped)
    assert [(e.title, e.year) for e in entries] == [("Big id", None), ("After", 2024)]
    assert skipped == ["1 record(s) with no title or abstract left out: 2"]


def test_raw_tabs_and_escapes_inside_json_strings_are_read_and_dropped(tmp_path):
    seeds = tmp_path / "scraped.jsonl"
    seeds.write_bytes(b'{"title": "Tab\there", "abstract": "An abstract\twith a raw tab '
                      b'and an \x1b[31mescape in it, long enough to be one."}\n'
                      b'{"title": "Bell\x07 [bold]x[/bold]"}\n')
    skipped: list[str] = []
    _, entries = parse_file(seeds, seeds.read_bytes(), skipped)
    assert [e.title for e in entries] == ["Tab here", "Bell [bold]x[/bold]"]
    assert "\x1b" not in entries[0].abstract_source
    assert skipped == []


def test_a_json_line_nested_too_deeply_is_one_bad_line(tmp_path):
    seeds = tmp_path / "deep.jsonl"
    seeds.write_text('{"title": "Before"}\n' + "[" * 100_000 + "]" * 100_000
                     + '\n{"title": "After"}\n')
    skipped: list[str] = []
    _, entries = parse_file(seeds, seeds.read_bytes(), skipped)
    assert [e.title for e in entries] == ["Before", "After"]
    assert skipped == ["1 line(s) with invalid JSON left out: 2"]


def test_a_bibtex_string_defined_in_another_file_stands_for_its_name(tmp_path, capfd):
    """``journal = jmlr`` with the @strings in a separate abbreviations file (usual in real
    .bib files) rejected the whole file with the reason "'jmlr'"."""
    bib = tmp_path / "refs.bib"
    bib.write_text("@string{b = \"y\" # a}\n@string{b = \"z\"}\n"
                   "@article{k1, title = {First}, journal = jmlr, year = {2020}}\n"
                   "@article{k2, title = \"Second \" # b, month = jan, year = 1999}\n",
                   encoding="utf-8")
    _, entries = parse_file(bib, bib.read_bytes())
    assert [(e.title, e.venue) for e in entries] == [("First", "jmlr"), ("Second z", None)]
    assert capfd.readouterr().err == ""  # no warnings of the parser on the terminal


@pytest.fixture
def mixed(tmp_path):
    """The shipped text seeds plus every structured fixture, in one seed folder."""
    folder = copy_seeds(tmp_path / "seeds")
    for file in FORMATS.iterdir():
        shutil.copy(file, folder / file.name)
    lib = Library([folder], tmp_path / "data")
    yield lib, folder
    lib.close()


def test_one_paper_per_abstract_or_title_across_formats(mixed):
    lib, _ = mixed
    report = lib.sync()
    by_file = {f.path: (f.status, f.entries, f.reason) for f in report.files}
    assert by_file["icml_sample.json"] == (
        "loaded", 3, "1 record(s) with no title or abstract left out: 4")
    assert by_file["icml_sample.bib"] == ("loaded", 3, "")
    # 35 text papers + K^2VAE (bib and JSON) + "Who experiences" (JSONL and CSV) + Attention
    assert report.papers == 38
    titled = {h.id: h.title for h in all_hits(lib) if h.title}
    assert titled[PARM] == PARM_TITLE
    assert titled[title_id(K2VAE)] == K2VAE
    assert len(titled) == 7  # PARM, Craftium, C-3PO, MENTOR and the three above


def test_first_structured_source_in_path_order_gives_the_fields(mixed):
    lib, folder = mixed
    lib.sync()
    parm = lib.get(PARM)
    # icml_sample.bib sorts before icml_sample.json: its venue wins; the text seed adds none
    assert parm.venue == "International Conference on Machine Learning"
    assert [s.file for s in parm.sources] == [
        "000_cd03ecd68f8352ab.txt", "icml_sample.bib", "icml_sample.json"]
    (folder / "icml_sample.bib").rename(folder / "zz.bib")
    lib.sync()
    parm = lib.get(PARM)
    assert (parm.venue, parm.year, parm.authors[0]) == ("ICML", 2025, "Baijiong Lin")
    assert parm.urls[0] == "https://icml.cc/virtual/2025/poster/43455"  # the JSON's link


def test_removing_the_structured_files_takes_their_fields_away(mixed):
    lib, folder = mixed
    lib.sync()
    assert lib.search("au:weisen").total == 1
    for file in FORMATS.iterdir():
        (folder / file.name).unlink()
    report = lib.sync()
    assert report.papers == 35
    parm = lib.get(PARM)
    assert (parm.title, parm.authors, parm.venue, parm.name) == (None, (), None, "PARM")
    assert parm.urls == ("https://github.com/Baijiong-Lin/PARM",)
    # no paper has authors now: the filter is said to be ignored rather than finding nothing
    assert lib.search("au:weisen").notice == "no paper here has authors: au:weisen ignored"
    # and the word left the vocabulary: it is no longer a known word but corrected to one
    assert lib.search("weisen").effective_query != "weisen"
    assert lib.fts_ok()


def test_adding_a_structured_file_to_text_papers_adds_title_and_authors(mixed):
    lib, folder = mixed
    aside = folder.parent / "aside"
    aside.mkdir()
    for file in FORMATS.iterdir():
        (folder / file.name).rename(aside / file.name)
    lib.sync()
    assert lib.get(PARM).title is None
    shutil.copy(aside / "icml_sample.json", folder / "icml_sample.json")
    report = lib.sync()
    assert (report.added, report.changed) == (1, 2)  # K^2VAE; PARM and Craftium
    assert lib.get(PARM).title == PARM_TITLE
    assert [h.title[:8] for h in lib.search("Malagón").hits] == ["Craftium"]


def test_authors_are_searchable_as_words_and_with_au(mixed):
    lib, _ = mixed
    lib.sync()
    assert [h.title for h in lib.search("Gossmann").hits] == [WHO]
    assert [h.title for h in lib.search("au:jean_feng").hits] == [WHO]
    assert lib.search("au:feng_jean").total == 0  # the words of a name in order
    assert lib.search("au:Łukasz").hits[0].title == "Attention Is All You Need"
    assert lib.search("au:malagon").hits[0].title.startswith("Craftium")  # ó folded
    every = lib.search("").total
    assert lib.search("-au:gossmann").total == every - 1
    assert lib.search("au:gossmann").effective_query == "au:gossmann"


def test_a_word_in_a_name_outranks_the_same_start_in_an_author_list(mixed):
    """"parm" is PARM's name; "Parmar" (an author of Attention Is All You Need) only starts so."""
    lib, _ = mixed
    lib.sync()
    for typing in (True, False):
        hits = lib.search("parm", typing=typing).hits
        assert hits[0].id == "0412d482992496cb", typing


def test_a_broken_file_is_one_error_and_the_others_load(tmp_path):
    folder = tmp_path / "seeds"
    folder.mkdir()
    shutil.copy(FORMATS / "icml_sample.csv", folder)
    (folder / "broken.json").write_text('{"papers": [{"title": "x"', encoding="utf-8")
    with Library([folder], tmp_path / "data") as lib:
        report = lib.sync()
    assert [(f.path, f.status) for f in report.files] == [
        ("broken.json", "error"), ("icml_sample.csv", "loaded")]
    assert report.files[0].reason.startswith("not valid JSON: Expecting")
    assert report.papers == 2


# -- the shared corpora (set PAPERTRAY_CORPORA to their folder; skipped otherwise) -----------

def test_icml_catalogue_of_titles_and_authors(tmp_path):
    path = corpus_file("icml2025_catalogue.jsonl")
    with Library([path], tmp_path / "data") as lib:
        report = lib.sync()
        assert (report.papers, report.files[0].status) == (3340, "loaded")
        assert lib.collections() == {"ICML 2025": 3340}
        hits = lib.search("au:Vedaldi", limit=50).hits
        assert hits and all("Vedaldi" in " ".join(lib.get(h.id).authors) for h in hits)
        assert lib.search("PARM preference-aware").hits[0].title == PARM_TITLE


def test_conference_abstracts_gzip_sample(tmp_path):
    path = corpus_file("conference_abstracts_87k.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        head = [next(fh) for _ in range(2000)]
    sample = tmp_path / "seeds" / "sample.jsonl.gz"
    sample.parent.mkdir()
    sample.write_bytes(gzip.compress("".join(head).encode("utf-8")))
    with Library([sample.parent], tmp_path / "data") as lib:
        report = lib.sync()
        assert report.files[0].status == "loaded"
        titled = [h for h in all_hits(lib) if h.title]
        assert report.papers >= 1900 and len(titled) == report.papers
        first = lib.search('"Flash3D"').hits[0]
        assert first.title.startswith("Flash3D: Feed-Forward Generalisable 3D Scene")
        assert lib.get(first.id).authors[0] == "Stanislaw Szymanowicz"
