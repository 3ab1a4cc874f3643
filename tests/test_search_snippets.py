"""What a search highlights: the words to mark, snippets, and matches beyond ASCII."""

from __future__ import annotations

import pytest

from db.search.highlight import match_spans
from tests.search_support import C_3PO, _one_file_library


def test_the_words_to_highlight_include_corrections_and_the_prefix(shipped_library):
    # (the corrected words are a long form the shipped seeds define: its short form RL too)
    assert shipped_library.search("reinforcment lerning").terms == (
        "reinforcement", "rl", "learning")
    assert shipped_library.search("state-of-the-art transfor", typing=True).terms == (
        "state", "of", "the", "art", "transfor*")
    assert shipped_library.search("c3po").terms == ("c", "3po")


@pytest.mark.parametrize("typed", ["adapti", "adaptive"])
def test_every_paper_a_word_being_typed_finds_shows_what_it_matched(shipped_library, typed):
    # PARM is found by its "adapt" and "Low-Rank Adaptation" (stem "adapt"): through the
    # completion "adapting" of "adapti", and through "adaptive"*, which FTS5 searches as
    # "adapt"*; neither "adapti*" nor "adaptive*" begins them, so nothing was highlighted
    result = shipped_library.search(typed, typing=True, limit=50)
    assert result.total == 9
    for hit in result.hits:
        text = shipped_library.get(hit.id).abstract_source
        assert match_spans(text, result.terms), hit.name
    parm = next(h for h in result.hits if h.name == "PARM")
    text = shipped_library.get(parm.id).abstract_source
    assert {text[a:b] for a, b in match_spans(text, result.terms)} == {"adapt", "Adaptation"}


def test_snippets_mark_what_matched(shipped_library):
    result = shipped_library.search("c3po")
    snippet = shipped_library.snippets([C_3PO, "0" * 16], result.terms)
    assert list(snippet) == [C_3PO]
    assert "we propose **C-3PO**, a proxy-centric framework" in snippet[C_3PO]


def test_search_snippet_through_the_cli(run_cli):
    out = run_cli("search", '"reinforcment"', '"lerning"', "--limit", "1", "--snippet")
    lines = out.stdout.splitlines()
    assert lines[0].startswith("88f8a6f8  ·  LMRL-Gym")
    assert "**Reinforcement learning** has the potential" in lines[1]
    data = run_cli("search", "c3po", "--snippet", "--json").json()
    assert [h["name"] for h in data["hits"]] == ["C-3PO"]
    assert "**C-3PO**" in data["hits"][0]["snippet"]
    assert "snippet" not in run_cli("search", "c3po", "--json").json()["hits"][0]


UNICODE_SEED = """Unicode Papers

We fine-tune GPT-4 on scientific abstracts and compare it with smaller models.

A cafe\u0301 recommender (decomposed accent) learns from orders placed at the counter.

Мы предлагаем нейронные сети для распознавания речи на русском языке.

本文提出了一种图神经网络方法，用于分子性质预测。
"""


@pytest.fixture(scope="module")
def unicode_library(tmp_path_factory):
    lib = _one_file_library(tmp_path_factory, "unicode", UNICODE_SEED)
    yield lib
    lib.close()


@pytest.mark.parametrize(("query", "starts", "highlighted"), [
    ("ＧＰＴ", "We fine-tune", ["GPT"]),                       # full-width finds ASCII
    ("gpt-4", "We fine-tune", ["GPT", "4"]),
    ("caf\u00e9", "A cafe\u0301", ["cafe\u0301"]),            # precomposed finds decomposed
    ("cafe\u0301", "A cafe\u0301", ["cafe\u0301"]),
    ("нейронные сети", "Мы предлагаем", ["нейронные", "сети"]),  # Cyrillic words
    ("НЕЙРОННЫЕ", "Мы предлагаем", ["нейронные"]),
    ("图神经网络", "本文提出", ["图", "神", "经", "网", "络"]),  # CJK by substring
    ("神经", "本文提出", ["神", "经"]),
])
def test_beyond_ascii(unicode_library, query, starts, highlighted):
    result = unicode_library.search(query)
    assert result.total == 1
    paper = unicode_library.get(result.hits[0].id)
    assert paper.abstract_markup.startswith(starts)
    text = paper.abstract_markup
    assert [text[a:b] for a, b in match_spans(text, result.terms)] == highlighted
