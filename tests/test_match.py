"""What a query matched, as the index sees it (db.search.highlight): stems, spans, snippets; and
the typo
correction against a vocabulary (db.search.spelling)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from db.search.highlight import match_spans, snippet, stem
from db.search.spelling import Vocabulary
from db.text import tokens


@pytest.mark.parametrize(("word", "terms", "matches"), [
    ("learning", ("learning",), True),
    ("Learned", ("learning",), True),      # the index stems: learning finds learned
    ("preferences", ("preference",), True),
    ("aligned", ("alignment",), True),
    ("studies", ("study",), True),
    ("date", ("data",), False),
    ("Preference-aware", ("preference",), True),
    ("transformers", ("transfor*",), True),  # the word being typed is a prefix
    ("transformers", ("transfor",), False),  # a whole word is not
    ("Élan", ("elan",), True),              # folded like the index folds
    ("Cafe\u0301", ("café",), True),        # decomposed in the text, precomposed in the query
    ("them", ("the*",), True),
    ("them", ("the",), False),
    ("the", ("them",), False),
    ("train", ("trait",), False),
    ("misalignment", ("alignment",), False),
    ("graph", (), False),
    ("Нейронные", ("нейронные",), True),     # Cyrillic is a word like any other
])
def test_words_that_match_query_terms(word, terms, matches):
    assert bool(match_spans(word, terms)) is matches


def test_spans_are_offsets_into_the_text_itself():
    text = "We learned 图神经网络 models, and Learning-to-rank."
    spans = match_spans(text, ("learn", "图", "神"))
    assert [text[a:b] for a, b in spans] == ["learned", "图", "神", "Learning"]


def test_stems_are_the_index_porter_stems():
    assert [stem(w) for w in ("learning", "generalization", "studies", "图", "café")] == [
        "learn", "gener", "studi", "图", "café"]
    assert tokens("ＧＰＴ-4 Café 图神") == ("gpt", "4", "cafe", "图", "神")


def test_a_snippet_marks_matches_around_the_densest_run():
    text = ("Intro words " * 30) + "we propose C-3PO, a proxy for retrieval. " + ("tail " * 60)
    out = snippet(text, ("c", "3po", "retrieval"))
    assert "**C-3PO**" in out and "**retrieval**" in out
    assert out.startswith("… ") and out.endswith(" …")
    assert len(out) < 260
    assert snippet("short text", ("zzz",)) == "short text"


@given(st.text(max_size=80), st.lists(st.text(max_size=6), max_size=4))
def test_spans_and_snippets_never_raise(text, terms):
    for a, b in match_spans(text, terms):
        assert 0 <= a < b <= len(text)
    snippet(text, terms)


VOCAB = Vocabulary({"learning": 900, "leaning": 40, "reinforcement": 300, "task": 500,
                    "gpu": 50, "fluoroscopy": 1, "mapping": 60, "making": 70, "natural": 80,
                    "neural": 700})


@pytest.mark.parametrize(("typed", "expected"), [
    ("lerning", ["learning"]),              # the frequent word beats the rare one
    ("leanring", ["learning"]),             # a swap of two letters is one edit
    ("reinforcment", ["reinforcement"]),
    ("ntaural", ["natural"]),               # not "neural", two edits away
    ("maping", ["making", "mapping"]),      # a near-tie keeps both spellings
    ("tsk", ["task"]),                      # a 3-letter word only gets a dropped letter back
    ("gpt", []),                            # ... so an acronym is not made "gpu"
    ("fluoroscopy", []),                    # in the vocabulary: never corrected, however rare
    ("gpt4", []), ("ab", []), ("zzzzzzzz", []),
])
def test_corrections_weigh_edits_against_frequency(typed, expected):
    assert VOCAB.correct(typed) == expected


SPLIT_VOCAB = Vocabulary({"multi": 90, "task": 500, "multitasking": 3, "nano": 5, "assembly": 40,
                          "e": 30, "commerce": 7, "mult": 2, "itask": 1, "a": 900, "as": 800,
                          "sembly": 1, "x": 10})


@pytest.mark.parametrize(("typed", "expected"), [
    ("multitask", [("multi", "task"), ("mult", "itask")]),  # the more frequent pair first
    ("nanoassembly", [("nano", "assembly")]),
    ("ecommerce", [("e", "commerce")]),     # a one-letter part when both parts are words
    ("multitasking", []),                   # a word of the index is never cut
    ("task", []),                           # no cut into two words
    ("xa", []), ("zzzzzz", []),             # too short; no words
])
def test_compound_words_are_cut_into_indexed_words(typed, expected):
    assert SPLIT_VOCAB.splits(typed) == expected
