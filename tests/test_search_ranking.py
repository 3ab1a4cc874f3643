"""Ranking: the paper that introduces a name first, acronyms, and best partial matches."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from db.search import rerank as rank
from tests.db_support import ids
from tests.search_support import C_3PO, HYPOTHESIS, PARM, S2_TRACK, WUDI, _containing


@pytest.mark.parametrize(("query", "name"), [
    ("PARM", "PARM"), ("parm", "PARM"), ("wudi", "WUDI-Merging"), ("s2 track", "S2-Track"),
    ("S2-Track", "S2-Track"), ("craftium", "Craftium"), ("dipllm", "DipLLM"),
    ("LMRL-Gym", "LMRL-Gym"), ("hc-smoe", "HC-SMoE"), ("c3po", "C-3PO"), ("C-3PO", "C-3PO"),
    ("WUDI merging", "WUDI-Merging"), ("s2track", "S2-Track"), ("lmrlgym", "LMRL-Gym"),
])
def test_the_paper_that_introduces_a_name_ranks_first(shipped_library, query, name):
    for typing in (False, True):
        assert shipped_library.search(query, typing=typing).hits[0].name == name


@pytest.mark.parametrize(("query", "first", "effective", "notice"), [
    # a name typed without its punctuation (its words shown as the abstracts write them)
    ("c3po", C_3PO, '"C 3PO"', ""),
    ("wudimerging", WUDI, '"WUDI merging"', ""),
    ("s2track", S2_TRACK, '"S2 track"', ""),
    ("parm", PARM, "parm", ""),
    ("preference alignment test time", PARM, "preference alignment test time", ""),
    ("diplomcy", "c6cf5bde67efacf4", "Diplomacy", "corrected diplomcy → Diplomacy"),  # the game
    ("multi-tsk", "a38c128b7bbe8ffd", '"multi task"', "corrected tsk → task"),
    ("PARM test-time alignmnt", PARM, 'PARM "test time" alignment',
     "corrected alignmnt → alignment"),
    # words run together find the hyphenated words of the abstracts (the same hits)
    ("multitask", "a38c128b7bbe8ffd", '"multi task"', "corrected multitask → multi-task"),
    ("multiobjective bayesian", "6b971365fa1cdc0e", '"multi objective" bayesian',
     "corrected multiobjective → multi-objective"),
])
def test_constructs_find_the_paper_meant(shipped_library, query, first, effective, notice):
    result = shipped_library.search(query)
    assert (result.hits[0].id, result.effective_query, result.notice) == (
        first, effective, notice)


def test_a_name_outweighs_the_same_word_in_abstracts(shipped_library):
    hits = shipped_library.search("merging", limit=100).hits
    assert hits[0].name == "WUDI-Merging"
    assert len(hits) > 1 and hits[0].score > hits[1].score


def test_too_few_hits_fall_back_to_partial_matches(shipped_library):
    result = shipped_library.search("diplomacy tensor", limit=100)
    assert result.notice == "no paper has all 2 words; showing best partial matches"
    assert {h.name for h in result.hits} == {"DipLLM", "LoRT"}


def test_a_handful_of_hits_in_a_big_library_also_ranks_partial_matches(shipped_library,
                                                                      monkeypatch):
    """In a library of 1,000 papers or more, fewer than 5 papers with every word is too few."""
    monkeypatch.setattr(rank, "SMALL_LIBRARY", 10)
    result = shipped_library.search("preference alignment test time", limit=100)
    assert result.notice == "only 1 paper has all 4 words; showing best partial matches"
    assert result.hits[0].id == PARM
    assert result.total > 1
    test_time = shipped_library.search("test-time", limit=100)  # one phrase: nothing to relax
    assert (test_time.notice, test_time.total) == ("", len(_containing("test-time")))
    assert 0 < test_time.total < rank.HANDFUL


def test_exclusion_and_filters_never_trigger_the_fallback(shipped_library):
    """An exclusion that removes every hit must not bring in papers the words alone never had."""
    assert shipped_library.search("multi task learning -multi").total == 0
    assert shipped_library.search("multi task learning is:read").total == 0


def _one_word(word: str) -> bool:
    """A word that stays one excluded word: no quote or space, even after NFKC ("´" is " ́")."""
    normal = unicodedata.normalize("NFKC", word)
    return '"' not in normal and not any(ch.isspace() for ch in normal)


WORDS = ["learning", "model", "multi-task", "graph", "tensor", "language", "reinforcement",
         "policy", "state-of-the-art", "data", "transform*", '"large language"', "OR", "NOT",
         "reinforcment", "diplomacy", "c3po", "alignmnt", "preference", "test-time"]


@HYPOTHESIS
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join),
       st.one_of(st.sampled_from([*WORDS, "zzqx", "the", "a"]),
                 st.text(st.characters(categories=["L", "N", "P", "S"]), min_size=1, max_size=8)
                 .filter(_one_word)))
def test_excluding_a_word_never_adds_hits(shipped_library, query, word):
    """``-word`` only removes hits (the fallback to partial matches never adds any back)."""
    plain = set(ids(shipped_library.search(query, limit=10_000).hits))
    without = set(ids(shipped_library.search(f"{query} -{word}", limit=10_000).hits))
    assert without <= plain


@HYPOTHESIS
@given(st.lists(st.sampled_from(WORDS), min_size=2, max_size=5).map(" ".join),
       st.sampled_from([*WORDS, "is:read", "-is:new", "has:code", "in:002"]))
def test_exclusions_and_filters_never_add_partial_matches(shipped_library, monkeypatch, query,
                                                          word):
    """As in a big library, where a handful of hits already brings in partial matches."""
    monkeypatch.setattr(rank, "SMALL_LIBRARY", 10)
    plain = set(ids(shipped_library.search(query, limit=10_000).hits))
    extra = word if word.startswith(("is:", "-is:", "has:", "in:")) else f"-{word}"
    assert set(ids(shipped_library.search(f"{query} {extra}", limit=10_000).hits)) <= plain


def test_initials_of_query_words_in_a_row_are_acronyms():
    """"SVI" in an abstract stands for "stochastic variational inference" in the query; a word of
    little idf ("of") inside the run is left out of the initials."""
    def slot(word, idf):
        return rank.Slot(frozenset({word}), "", 1, f'"{word}"', idf=idf, word=word)

    found = [slot("stochastic", 3.0), slot("variational", 4.0), slot("inference", 2.0)]
    acronyms = rank._acronyms(found)
    assert acronyms["svi"] == acronyms["svis"] == 9.0
    assert "sv" not in acronyms and "vi" not in acronyms
    found = [slot("mixture", 3.0), slot("of", 0.01), slot("sparse", 2.0), slot("experts", 2.5)]
    acronyms = rank._acronyms(found)
    assert acronyms["mse"] == 7.5 and "mose" not in acronyms


def test_the_partial_match_notice_counts_the_words_typed(shipped_library):
    """It said "only the first 32 words are used; no paper has all 80 words": each part of a
    hyphenated word and each repeat counted as one more word."""
    query = " ".join(f"state-of-the-art zzqy{i}" for i in range(20))
    assert shipped_library.search(query).notice == (
        "no paper has all 21 words; showing best partial matches")
    assert shipped_library.search("diplomacy multi-agent tensor").notice == \
        "no paper has all 3 words; showing best partial matches"
