"""Searching as the user types: the last word is a prefix, found as the whole word would be."""

from __future__ import annotations

import pytest

from tests.db_support import all_hits, ids
from tests.search_support import SEED_ORDER, _containing


def test_a_word_being_typed_finds_its_other_number_too(shipped_library):
    # the browser searches as each key is typed: the last word is a prefix, and stays one
    found = shipped_library.search("matrices", typing=True)
    assert (found.effective_query, found.terms) == ("matrices* OR matrix", ("matrices*", "matrix"))
    assert set(ids(all_hits(shipped_library, "matrices"))) == _containing(r"\bmatri(x|ces)\b")
    assert ids(found.hits) == ids(shipped_library.search("matrices").hits)


def test_a_word_being_typed_counts_once_however_many_words_it_completes_to(shipped_library):
    # "adapti" completes to adapting, adaptive, adaptively: one stem in the index ("adapt"),
    # searched three times it counted three times in bm25; its hits and their scores are now
    # those of the whole word typed
    typed = shipped_library.search("adapti", typing=True)
    whole = shipped_library.search("adaptive")
    assert typed.total == whole.total > 1
    assert [(h.id, round(h.score, 9)) for h in typed.hits] == [
        (h.id, round(h.score, 9)) for h in whole.hits]


def test_a_whole_word_still_being_typed_counts_once(shipped_library):
    # FTS5 stems a prefix as well: "adaptive"* is "adapt"*, which matches "adaptively" (stem
    # "adapt") already; searched as a completion too it counted twice, and a paper's score
    # doubled the moment its word was typed in full
    typed = shipped_library.search("adaptive", typing=True)
    whole = shipped_library.search("adaptive")
    assert "adaptively" not in typed.effective_query
    assert typed.total == whole.total > 1
    assert [(h.id, round(h.score, 9)) for h in typed.hits] == [
        (h.id, round(h.score, 9)) for h in whole.hits]


def test_the_last_word_is_a_prefix_while_typing(shipped_library):
    typed = shipped_library.search("transfor", typing=True, limit=100)
    assert set(ids(typed.hits)) == _containing(r"\btransfor")
    assert typed.effective_query == "transfor*"
    # a trailing space ends the word: "transfor" is then a word in no paper, and corrected
    assert shipped_library.search("transfor ", typing=True).effective_query == "transfer"
    assert shipped_library.search("transfor", typing=False).effective_query != "transfor*"


@pytest.mark.parametrize("typed", ["reinforcem", "reinforceme", "reinforcemen", "reinforcement"])
def test_a_prefix_finds_the_words_it_begins_though_the_index_holds_their_stems(
        shipped_library, typed):
    """The index stores Porter stems ("reinforc"): the prefix "reinforcem" alone matches none
    of them, so each prefix also matches the words of the vocabulary it begins."""
    expected = set(ids(all_hits(shipped_library, "reinforcement")))
    assert len(expected) == len(_containing(r"\breinforcement"))
    assert set(ids(all_hits(shipped_library, typed, typing=True))) == expected
    assert set(ids(all_hits(shipped_library, typed + "*"))) == expected


@pytest.mark.parametrize("typed", ["multi-objecti", "multi-objectiv", "multi-objective"])
def test_a_hyphenated_word_being_typed_finds_the_words_its_last_part_begins(shipped_library, typed):
    """"multi-objectiv" is the phrase "multi objectiv" with its last word a prefix: the index
    holds "object" (the Porter stem of "objective"), which "objectiv" does not begin, so the
    phrase also matches the whole words that last part begins, as a single word does."""
    expected = set(ids(all_hits(shipped_library, "multi-objective")))
    assert expected == _containing(r"\bmulti-objective")
    assert set(ids(all_hits(shipped_library, typed, typing=True))) == expected
    assert set(ids(all_hits(shipped_library, "-" + typed + "*"))) == set(SEED_ORDER) - expected


@pytest.mark.parametrize("excluded", ["-reinforcem*", "-reinforceme*", "-reinforcement*"])
def test_an_excluded_prefix_drops_the_words_it_begins_as_the_prefix_finds_them(
        shipped_library, excluded):
    """"-reinforcem*" must drop exactly the papers "reinforcem*" finds: the prefix alone
    matches no Porter stem ("reinforc"), so the exclusion, too, needs the words it begins."""
    found = set(ids(all_hits(shipped_library, excluded[1:])))
    assert found == _containing(r"\breinforcement")
    assert set(ids(all_hits(shipped_library, excluded))) == set(SEED_ORDER) - found


@pytest.mark.parametrize(("typed", "word"), [("minecraft diffusi", "diffusion"),
                                              ("tensor reinforcem", "reinforcement")])
def test_best_partial_matches_while_typing_include_the_words_the_prefix_begins(
        shipped_library, typed, word):
    """No paper has both words, so the best partial matches are ranked: the papers of the word
    being typed are among them, though its Porter stem ("diffus") does not begin with it."""
    result = shipped_library.search(typed, typing=True, limit=100)
    assert "partial matches" in result.notice
    assert set(ids(all_hits(shipped_library, word))) <= set(ids(result.hits))


@pytest.mark.parametrize("typed", ["rl", "3d", "ai"])
def test_a_word_of_two_letters_being_typed_is_a_word_not_a_prefix(shipped_library, typed):
    """A one- or two-letter prefix would match nearly every paper (and take the longest to
    rank); as a word it is what people mean: "rl", "3d"."""
    result = shipped_library.search(typed, typing=True, limit=100)
    # ("rl" also finds its long form, which the seeds define: rl OR "reinforcement learning")
    assert result.effective_query.split(" OR ")[0] == typed and "*" not in result.effective_query
    assert ids(result.hits) == ids(shipped_library.search(typed, limit=100).hits)
    assert result.total >= 1


@pytest.mark.parametrize("after", ["is:new", "-is:read", "has:code", "in:icml", "au:x", "tag:x",
                                   "year:2025", "kw:x"])
def test_a_filter_typed_after_a_word_leaves_the_word_whole(shipped_library, after):
    """The word being typed is the filter, not the word before it: "graph" is no prefix. (A
    filter on a field no shipped paper has, au: and kw:, is left out, and said.)"""
    result = shipped_library.search(f"graph {after}", typing=True)
    dropped = after.startswith(("au:", "kw:"))
    assert result.effective_query == ("graph" if dropped else f"graph {after}")
    assert ("ignored" in result.notice) is dropped
    assert result.terms == ("graph",)
    assert shipped_library.search("graph", typing=True).effective_query == "graph*"
