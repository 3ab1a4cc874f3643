"""Spellings: misspelt words corrected, compounds and irregular plurals in their other forms."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.db_support import all_hits, ids
from tests.search_support import _containing, _one_file_library


def test_misspelt_words_are_corrected_and_said(shipped_library):
    # quoted, each word is corrected and searched as it is (no acronym expanded)
    result = shipped_library.search('"reinforcment" "lerning"', limit=100)
    assert result.effective_query == '"reinforcement" "learning"'  # quoted, as it runs
    assert result.notice == "corrected reinforcment → reinforcement, lerning → learning"
    assert set(ids(result.hits)) == _containing("reinforcement learning")
    assert [h.name for h in result.hits if h.name] == [
        "LMRL-Gym", "MENTOR", "Craftium", "C-3PO", "M3DT", "BATI", "SDQC"]
    assert result.total == 8
    # as words, the corrected words are a long form the seeds define: its short form RL too
    # (every paper of the seeds that writes RL writes reinforcement learning as well)
    result = shipped_library.search("reinforcment lerning", limit=100)
    assert result.effective_query == "reinforcement learning"
    assert result.notice == ("corrected reinforcment → reinforcement, lerning → learning; "
                             "also searching RL for reinforcement learning")
    assert set(ids(result.hits)) == _containing("reinforcement learning")


@pytest.mark.parametrize(("joined", "hyphenated"), [
    ("multitask", "multi-task"), ("realworld", "real-world"), ("lowrank", "low-rank"),
    ("testtime", "test-time"), ("multiagent", "multi-agent")])
def test_words_run_together_find_what_the_hyphenated_words_find(shipped_library, joined,
                                                                  hyphenated):
    for typing in (False, True):  # typed to its end in the browser, the last part is a prefix
        found = shipped_library.search(joined, typing=typing)
        assert found.total > 0
        assert ids(found.hits) == ids(shipped_library.search(hyphenated, typing=typing).hits)


@pytest.mark.parametrize(("query", "effective", "pattern"), [
    # one paper writes "finetuning", four "fine-tuning": each spelling finds all five
    ("finetuning", 'finetuning OR "fine tuning"', r"\bfine-?tuning\b"),
    ("pretrained", 'pretrained OR "pre trained"', r"\bpre-?trained\b"),
    ("pre-trained", '"pre trained" OR pretrained', r"\bpre-?trained\b"),
    ("fine-tuning", '"fine tuning"', r"\bfine-tuning\b"),  # one paper is too few to add
    ("understanding", "understanding", r"\bunderstanding\b"),  # no "under standing" here
])
def test_a_compound_also_finds_its_other_spelling(shipped_library, query, effective, pattern):
    found = shipped_library.search(query)
    assert found.effective_query == effective
    assert set(ids(all_hits(shipped_library, query))) == _containing(pattern)
    # and excluding it excludes every spelling
    assert not set(ids(all_hits(shipped_library, "-" + query))) & _containing(pattern)


@pytest.mark.parametrize(("query", "effective", "pattern"), [
    # the stemmer keeps "matrix" and "matrices" apart; one paper has both, one only "matrix"
    ("matrices", "matrices OR matrix", r"\bmatri(x|ces)\b"),
    ("matrix", "matrix OR matrices", r"\bmatri(x|ces)\b"),
    ("matrix OR matrices", "matrix OR matrices", r"\bmatri(x|ces)\b"),  # reads as typed
    # a form no paper has is the other one, not a correction to another word ("optimal")
    ("optima", "optimum", r"\boptim(um|a)\b"),
    ("analyses", "analysis", r"\banalys[ie]s\b"),
])
def test_an_irregular_plural_finds_its_singular_and_the_other_way_round(
        shipped_library, query, effective, pattern):
    found = shipped_library.search(query)
    assert (found.effective_query, found.notice) == (effective, "")
    assert set(ids(all_hits(shipped_library, query))) == _containing(pattern)
    # excluding one form excludes both, and the words to highlight hold both forms
    assert not set(ids(all_hits(shipped_library, "-" + query.split()[0]))) & _containing(pattern)


def test_an_excluded_irregular_plural_reads_back_as_typed(shipped_library):
    assert shipped_library.search("-matrix").effective_query == "-matrix -matrices"
    assert shipped_library.search("-matrix -matrices").effective_query == "-matrix -matrices"
    assert shipped_library.search("matrices").terms == ("matrices", "matrix")


def test_a_longer_query_keeps_the_number_typed_unless_no_paper_has_it(shipped_library):
    # a title remembered: the form typed is the paper's own (db.search.rewrite.PLURAL_TERMS)
    found = shipped_library.search("low rank matrix completion")
    assert found.effective_query == "low rank matrix completion"
    assert shipped_library.search("local optima of deep networks").effective_query == (
        "local optimum of deep networks")


COMPOUND_SEED = "Compounds 2025\n\n" + "\n\n".join([
    *(f"We report a notable gain in accuracy for sparse model number {i}." for i in range(4)),
    *(f"Current detectors are not able to find small object number {i}." for i in range(4)),
    *(f"These features are useless for ranking list number {i}." for i in range(3)),
    *(f"Our method can use less memory on device number {i}." for i in range(3)),
    *(f"A multitask learner for speech corpus number {i}." for i in range(2)),
    *(f"A multi-task benchmark for vision suite number {i}." for i in range(3)),
]) + "\n"


@pytest.fixture(scope="module")
def compound_library(tmp_path_factory):
    lib = _one_file_library(tmp_path_factory, "compounds", COMPOUND_SEED)
    yield lib
    lib.close()


@pytest.mark.parametrize(("query", "effective", "total"), [
    # two words that only meet by chance are no spelling of the word they run together into:
    # no abstract writes "not-able" or "use-less"
    ("notable", "notable", 4),
    ('"not able"', '"not able"', 4),
    ("useless", "useless", 3),
    ("use-less", '"use less"', 3),
    # while some abstract writes "multi-task", so each spelling finds both
    ("multitask", 'multitask OR "multi task"', 5),
    ("multi-task", '"multi task" OR multitask', 5),
])
def test_only_a_hyphenated_pair_is_a_compound_spelled_otherwise(compound_library, query,
                                                                 effective, total):
    """Found by trying the search: "notable" found every "not able to", "useless" every "can use
    less", since both phrases are in enough abstracts."""
    found = compound_library.search(query)
    assert (found.effective_query, found.total) == (effective, total)


@pytest.mark.parametrize(("query", "effective"), [
    ("-multitask", '-multitask -"multi task"'),
    ("-multi-task", '-"multi task" -multitask'),
    ("number -multitask", 'number -multitask -"multi task"'),
    # a spelling typed already is not added again
    ('multitask OR "multi task"', 'multitask OR "multi task"'),
    ('-multitask -"multi task"', '-multitask -"multi task"'),
])
def test_the_effective_query_of_an_excluded_compound_reads_back_the_same(compound_library, query,
                                                                           effective):
    """Found by trying the search: "-multitask" read as '-(multitask OR "multi task")', which the
    query language (no parentheses) reads as excluding "multitask", requiring the word "or" and
    the phrase: typed back, it found nothing instead of every other paper."""
    found = compound_library.search(query)
    again = compound_library.search(found.effective_query)
    assert found.effective_query == again.effective_query == effective
    assert ids(all_hits(compound_library, query)) == ids(all_hits(compound_library, effective))
    assert again.total == found.total > 0


#: Words that fold to another key in the index: accents, Cyrillic й, Greek final sigma, German
#: ß, Turkish dotless and dotted i, a ligature, and a name written in capitals.
SURFACE_SEED = "Surface forms 2025\n\n" + "\n\n".join([
    "Графовые модели нейронных сетей обучаются быстро. Мы изучаем глубину сетей и их ширину.",
    "The café owners near Café Müller studied a naïve Bayes model of Paul Erdős numbers.",
    "We revisit the naïve baseline of Müller and the classic Erdős graphs of the café.",
    "Τα νευρωνικά δίκτυα μαθαίνουν γρήγορα. Ο λόγος είναι απλός, και ο λόγος μετρά.",
    "Wir messen die Straße in der Stadt. Die Straße ist lang.",
    "Bu çalışmada Işık modelini öneriyoruz ve Işık verisini kullanıyoruz.",
    "A ﬁnite automaton accepts the ﬁnite language of the CONDOR benchmark and CONDOR tasks.",
]) + "\n"


@pytest.fixture(scope="module")
def surface_library(tmp_path_factory):
    lib = _one_file_library(tmp_path_factory, "surface", SURFACE_SEED)
    yield lib
    lib.close()


@pytest.mark.parametrize(("query", "corrected", "effective"), [
    ("сети", "сети → сетей", "сетей"),
    ("cafee", "cafee → café", "café"),
    ("mueller", "mueller → Müller", "Müller"),
    ("naiive", "naiive → naïve", "naïve"),
    ("erdoss", "erdoss → Erdős", "Erdős"),
    ("λογου", "λογου → λόγος", "λόγος"),
    ("strase", "strase → Straße", "Straße"),
    ("isik", "isik → Işık", "Işık"),
    ("finte", "finte → finite", "finite"),
    ("condr", "condr → CONDOR", "CONDOR"),
])
def test_a_correction_shows_the_word_as_the_abstracts_write_it(surface_library, query,
                                                               corrected, effective):
    """Found by trying a Cyrillic query: "corrected сети → сетеи" showed the index's key (й
    folded to и), a word no abstract has; so did every accented, Greek, German and Turkish
    word, and the effective query."""
    found = surface_library.search(query)
    assert found.notice == f"corrected {corrected}"
    assert found.effective_query == effective
    assert found.total >= 1
    assert surface_library.search(found.effective_query).total == found.total


@pytest.mark.parametrize(("query", "corrected"), [
    ("сетейй", "сетейй → сетей"),  # й is и in the index's key: "сетеии" is no one's word
    ("Λόγοςς", "λόγοςς → λόγος"),  # accents and the final sigma as typed, not "λογοσσ"
    ("Straßee", "straßee → Straße"),  # not "strassee"
    ("Mülller", "mülller → Müller"),
])
def test_a_correction_shows_the_misspelt_word_as_typed_not_its_key(surface_library, query,
                                                                   corrected):
    """Found by trying a Cyrillic query: "нейроные" was said as "corrected неироные → …", the
    misspelt word's folded key, a spelling the reader never typed."""
    assert surface_library.search(query).notice == f"corrected {corrected}"


@pytest.mark.parametrize(("query", "effective"), [
    ("Müller naïve", "Müller naïve"),  # typed with its accents: shown so
    ("muller naive", "muller naive"),  # typed plainly: shown as typed
    ("MÜLLER", "Müller"),  # the spelling the abstracts use, not the capitals typed
    ("NAIVE Condor", "naïve CONDOR"),  # keys typed in capitals: as written, not "naive condor"
    ("ΛΌΓΟΣ", "λόγος"),
])
def test_the_effective_query_shows_words_typed_or_as_written(surface_library, query, effective):
    assert surface_library.search(query).effective_query == effective


def test_the_command_line_shows_corrections_as_written(surface_library, run_cli, tmp_path):
    seeds = surface_library.seed_paths[0]
    found = run_cli("search", "mueller", "erdoss", "--json", seeds=seeds, data=tmp_path)
    assert (found.json()["notice"], found.json()["effective_query"]) == (
        "corrected mueller → Müller, erdoss → Erdős", "Müller Erdős")
    text = run_cli("search", "сети", seeds=seeds, data=tmp_path)
    assert "(corrected сети → сетей)" in text.stderr
    snippets = run_cli("search", "mueller", "--snippet", "--json", seeds=seeds, data=tmp_path)
    assert all("**Müller**" in h["snippet"] for h in snippets.json()["hits"])


def test_an_author_filter_reads_back_with_the_name_as_written(tmp_path):
    from db import Library

    (tmp_path / "seeds").mkdir()
    sample = Path(__file__).parent / "data" / "formats" / "icml_sample.json"
    (tmp_path / "seeds" / sample.name).write_bytes(sample.read_bytes())
    with Library([tmp_path / "seeds"], tmp_path / "data") as lib:
        lib.sync()
        found = lib.search("au:MALAGÓN")
        assert (found.effective_query, found.total) == ("au:Malagón", 1)
        assert lib.search("au:malagon").effective_query == "au:malagon"  # as typed


def test_similar_papers_are_explained_by_words_as_written(surface_library):
    """The words ``like:`` names in its notice (and runs as its effective query) are spelt as in
    the abstracts."""
    muller = surface_library.search("Müller café").hits[0].id
    found = surface_library.search(f"like:{muller}")
    named = found.notice.split("(by ", 1)[1].rstrip("…)").split(", ")
    text = SURFACE_SEED.replace("ﬁ", "fi")
    assert named and all(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text) for w in named), named
    assert {"Müller", "café", "Erdős"} & set(named)
    for word in found.effective_query.split(" OR "):
        assert re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text), word
