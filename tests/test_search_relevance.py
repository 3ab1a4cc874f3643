"""Search as ranked retrieval: real words no paper has, stop-words, long queries ranked by their
rare words, partial matches paged past 200, and the commonest words left out of a long query."""

from __future__ import annotations

import sqlite3

import pytest

from db.search.stopwords import is_sentence
from tests.db_support import all_hits, ids
from tests.search_support import _one_file_library


def test_a_real_word_no_paper_has_is_left_out_not_corrected(shipped_library):
    """"pesticides" was corrected to "peptides", "censor" to "tensor": real words made into
    other words. A word of the language that no paper has is named and the rest is searched."""
    found = shipped_library.search("censor diffusion", limit=100)
    assert found.notice == "no paper has censor (searched without it)"
    assert found.effective_query == "diffusion"
    assert ids(found.hits) == ids(shipped_library.search("diffusion", limit=100).hits) != []
    two = shipped_library.search("pesticides censor diffusion")
    assert two.notice == "no paper has pesticides or censor (searched without them)"


def test_a_real_word_alone_is_corrected_when_nothing_else_would_be_found(shipped_library):
    found = shipped_library.search("censor")
    assert (found.notice, found.effective_query) == ("corrected censor → tensor", "tensor")
    assert found.total > 0


def test_an_inflection_of_a_library_word_is_searched_as_typed(shipped_library):
    """"addressing" is no index word, but FTS5 finds it by its stem ("address")."""
    found = shipped_library.search("addressing", limit=100)
    assert (found.notice, found.effective_query) == ("", "addressing")
    assert ids(found.hits) == ids(shipped_library.search("address", limit=100).hits) != []


def test_a_whole_word_being_typed_is_not_corrected(shipped_library):
    """Typed into the browser, "evaluated" (a prefix while typing) was "corrected" to
    "evaluate"."""
    found = shipped_library.search("how is it evaluated", typing=True)
    assert (found.notice, found.effective_query) == ("", "how is it evaluated*")
    assert found.total > 0


def test_a_misspelt_word_is_still_corrected(shipped_library):
    found = shipped_library.search("diffusoin policy")
    assert found.notice.startswith("corrected diffusoin → diffusion")


def test_stop_words_neither_match_nor_rank(shipped_library):
    question = shipped_library.search("what is known about the alignment of language models",
                                      limit=100)
    plain = shipped_library.search("known alignment language models", limit=100)
    assert ids(question.hits) == ids(plain.hits) != []
    assert question.effective_query == "what is known about the alignment of language models"
    # a quoted stop-word is searched: "from" is in fewer papers than "learning"
    assert shipped_library.search('"from" learning').total < shipped_library.search(
        "learning").total
    # a query of stop-words alone searches them
    assert shipped_library.search("the", limit=100).total >= 30


COMMON = ("method", "results", "model", "data", "performance", "approach", "training",
          "learning", "shows", "problem", "new")


@pytest.fixture(scope="module")
def question_library(tmp_path_factory):
    """30 abstracts with most of the question's common words, one with its one rare word."""
    papers = [" ".join(COMMON[:10]) + f" about topic{i} and more words in abstract {i}."
              for i in range(30)]
    papers.append("We study hydrocephalus in a new cohort: the results of the data.")
    return _one_file_library(tmp_path_factory, "questions",
                             "Questions\n\n" + "\n\n".join(papers) + "\n")


def test_a_long_query_finds_the_paper_of_its_one_rare_word(question_library):
    query = "what " + " ".join(COMMON) + " is known about hydrocephalus"
    found = question_library.search(query, limit=10)
    assert "hydrocephalus" in found.hits[0].headline.lower()
    assert found.total == 31  # every paper with any of the words


@pytest.fixture(scope="module")
def wide_library(tmp_path_factory):
    """250 abstracts with "alpha", 20 with "beta", none with both."""
    papers = [f"Alpha study number {i} of signals." for i in range(250)]
    papers += [f"Beta result number {i} of noise." for i in range(20)]
    return _one_file_library(tmp_path_factory, "wide", "Wide\n\n" + "\n\n".join(papers) + "\n")


def test_partial_matches_page_past_200(wide_library):
    """A partial match stopped at 200 hits; now every paper with any word is listed."""
    first = wide_library.search("alpha beta", limit=100)
    assert first.total == 270
    assert "no paper has all 2 words" in first.notice
    pages = [wide_library.search("alpha beta", limit=100, offset=o).hits for o in (0, 100, 200)]
    listed = [h.id for page in pages for h in page]
    assert len(listed) == len(set(listed)) == 270
    assert ids(all_hits(wide_library, "alpha beta")) == listed


COMMON_WORDS = ("model models learning data method methods results performance task tasks "
                "training large language approach problem show propose based new using paper "
                "work demonstrate existing across framework set study different achieve "
                "provide approaches analysis")


def test_partial_matches_in_two_parts_page_the_same(wide_library, monkeypatch):
    """In a large library the papers with the rarer words come first, then those with common
    words alone (db.search.anyword): the pages still list every paper once."""
    from db.search import anyword

    monkeypatch.setattr(anyword, "ROWS", 30)  # "beta" (20 papers) is rare, "alpha" common
    listed = [h.id for o in range(0, 280, 7)
              for h in wide_library.search("alpha beta", limit=7, offset=o).hits]
    assert wide_library.search("alpha beta").total == 270
    assert len(listed) == len(set(listed)) == 270
    assert listed == ids(all_hits(wide_library, "alpha beta"))
    assert all(h.headline.startswith("Beta") for h in wide_library.search(
        "alpha beta", limit=20).hits)


def test_a_query_past_32_words_leaves_out_its_commonest(shipped_library):
    """A query over 32 words kept its first 32: the rare word at its end was dropped."""
    words = COMMON_WORDS.split()
    assert len(set(words)) > 32
    found = shipped_library.search(" ".join(words) + " wudi", limit=100)
    assert f"only the 32 rarest of {len(set(words)) + 1} words are used" in found.notice
    assert "wudi" in found.effective_query.split()
    assert ids(found.hits)[0] in ids(shipped_library.search("wudi").hits)


def _plain_bm25(library, words: list[str]) -> list[str]:
    """Paper ids of the OR of ``words`` as plain FTS5 ranks them on the library's index."""
    index = library.seed_paths[0].parent / "data" / "index.sqlite"
    with sqlite3.connect(index) as conn:
        expected = [r[0] for r in conn.execute(
            "SELECT p.id FROM papers_fts JOIN papers p ON p.rowid = papers_fts.rowid "
            "WHERE papers_fts MATCH ? ORDER BY bm25(papers_fts, 1, 8, 8, 2), p.first_file, "
            "p.first_pos", (" OR ".join(words),))]
    return expected


# a description longer than a title (17 words, stop-words aside), and a question of 7
LONG = ("methods that improve the sample efficiency of trained learning agents in robotic "
        "manipulation with sparse rewards and long horizons under noisy observations from "
        "diverse environments")
QUESTION = "how can diffusion models generate molecular structures in three dimensions?"


@pytest.mark.parametrize(("query", "words"), [
    (LONG, ["methods", "improve", "sample", "efficiency", "trained", "learning",
            "agents", "robotic", "manipulation", "sparse", "rewards", "long", "horizons",
            "noisy", "observations", "diverse", "environments"]),
    (QUESTION, ["diffusion", "models", "generate", "molecular", "structures", "three",
                "dimensions"]),
])
def test_a_question_or_a_description_is_ranked_by_bm25_over_its_words(shipped_library, query,
                                                                     words):
    """A question was ranked by how many of its words a paper has (and stopped at 200 hits):
    now it is bm25 over its words, stop-words out, every paper with any of them listed, as
    plain FTS5 ranks them on the same index."""
    found = shipped_library.search(query, limit=100)
    expected = _plain_bm25(shipped_library, words)
    assert found.total == len(expected) > 20
    assert ids(found.hits) == expected


def test_a_title_of_as_many_words_is_ranked_as_a_title(shipped_library):
    """The same words typed as a title (no question word, no full stop) keep the title
    ranking: the papers with most of them, in order, first."""
    title = "Diffusion Models Generate Molecular Structures in Three Dimensions"
    found = shipped_library.search(title, limit=100)
    words = ["diffusion", "models", "generate", "molecular", "structures", "three", "dimensions"]
    assert found.total == len(_plain_bm25(shipped_library, words))
    assert ids(found.hits) != _plain_bm25(shipped_library, words)


@pytest.mark.parametrize(("text", "sentence"), [
    ("what is known about boundary layers?", True), ("How do transformers generalize ?", True),
    ("boundary layer transition at hypersonic speeds.", True), ("does it work?", True),
    ("Natural Gradient Revisited", False), ("On the Convergence of Adam", False),
    ("Tokenizer Choice For LLM Training: Negligible or Crucial?", False),
    ("What and How does In-Context Learning Learn? Bayesian Model Averaging", False),
    ("", False),
])
def test_a_sentence_is_told_from_a_title(text, sentence):
    assert is_sentence(text) is sentence


@pytest.mark.parametrize(("query", "typing"), [
    ('0 "0:1', False),  # a phrase the re-ranking takes word by word
    ("0 0¡LAR", True),  # a phrase being typed
    ("multitask zzqy", False),  # a compound's other spelling
    ("proximal policy optimisation zzqy reinforcement learning", False),  # an acronym's
])
def test_every_partial_match_shown_is_counted(shipped_library, query, typing):
    """The partial matches re-ranked first came from each word of a phrase, the total from
    the phrase: "0 \\"0:1\\"" showed 6 hits of a total of 0."""
    found = shipped_library.search(query, limit=100, typing=typing)
    assert found.total == len(found.hits) > 0


# -- found by a break-it pass -------------------------------------------------------------------

def test_a_note_with_every_word_keeps_the_partial_matches(tmp_path):
    """A note holding every word made the search require every word: 6 partial matches became
    the one noted paper."""
    from db import Library
    from tests.db_support import copy_seeds

    lib = Library([copy_seeds(tmp_path / "seeds")], tmp_path / "data")
    lib.sync()
    before = lib.search("alignment tensor", limit=100)
    assert "no paper has all 2 words" in before.notice
    noted = lib.search("", limit=100).hits[-1].id  # a paper with neither word
    assert noted not in ids(before.hits)
    lib.set_note(noted, "alignment tensor")
    after = lib.search("alignment tensor", limit=100)
    assert ids(after.hits) == [noted, *ids(before.hits)]
    assert after.total == before.total + 1
    lib.close()


def test_a_misspelt_stop_word_is_a_stop_word(shipped_library):
    """"thier alignment" was "corrected thier → their" and then required "their"."""
    found = shipped_library.search("thier alignment", limit=100)
    assert found.notice == "corrected thier → their"
    assert ids(found.hits) == ids(shipped_library.search("alignment", limit=100).hits) != []


@pytest.mark.parametrize("query", [
    "tensor regression transfer learning low rank.",
    "Can large language models align preferences at inference time?",
    '"RL" alignment', '"be" alignment', "thier alignment",
    "is:new tensor regression transfer learning low rank.", "mixture-of-experts",
])
def test_the_effective_query_runs_the_same_again(shipped_library, query):
    """A sentence lost its full stop (ranked as a title when run again), a quoted word its
    quotes (an acronym expanded, a stop-word left out)."""
    found = shipped_library.search(query, limit=100)
    again = shipped_library.search(found.effective_query, limit=100)
    assert (ids(again.hits), again.total) == (ids(found.hits), found.total)
    assert found.total > 0


def test_an_exclusion_after_a_sentence_only_removes_papers(shipped_library):
    """"… language -zebras." was read as a sentence, and found 27 papers where the words alone
    found 1."""
    words = "preference alignment inference model language"
    alone = set(ids(all_hits(shipped_library, words)))
    for extra in (" -zebras.", " -tag:zz.", " is:new."):
        assert set(ids(all_hits(shipped_library, words + extra))) <= alone


def test_a_stop_word_being_typed_is_a_stop_word(shipped_library):
    """The command line searches as typing: "transformers with" searched "with"* and found
    fewer papers than "transformers"."""
    found = shipped_library.search("transformers with", limit=100, typing=True)
    assert ids(found.hits) == ids(shipped_library.search("transformers", limit=100).hits)


def test_an_absent_english_word_takes_no_place_of_the_32(shipped_library):
    words = COMMON_WORDS.split()[:32]
    found = shipped_library.search(" ".join([*words, "pesticides"]), limit=100)
    assert found.effective_query.split() == words
    assert "only the 32 rarest" in found.notice


@pytest.fixture(scope="module")
def umlaut_library(tmp_path_factory):
    return _one_file_library(tmp_path_factory, "umlaut", "Umlaut\n\n"
                             "Müller and Schölkopf show a kernel method.\n\n"
                             "Sho et al. align models; we show how.\n")


def test_only_a_written_out_umlaut_is_read_as_one(umlaut_library):
    """"shoe" was read as an umlaut written out ("sho", an index word) and corrected to
    "show"."""
    assert umlaut_library.search("shoe align").notice == "no paper has shoe (searched without it)"
    assert umlaut_library.search("mueller").notice == "corrected mueller → Müller"
    assert umlaut_library.search("schoelkopf").notice == "corrected schoelkopf → Schölkopf"


@pytest.mark.parametrize(("text", "mark"), [
    ("recent data on shock-induced boundary-layer separation .", "."),  # Cranfield's way
    ("tensor regression low rank. is:new", "."), ("is:new tensor regression low rank.", "."),
    ("preference alignment -zebras.", ""), ("preference alignment -tag:zz.", ""),
    ("how does it scale? -zebras", ""), ("how does it scale?", "?"),
])
def test_a_query_is_a_sentence_by_its_words_not_its_filters(text, mark):
    from db.search.query import parse

    assert parse(text).sentence == mark
