"""Hyphenation of seed text: words broken at line ends repaired on evidence, the source kept."""

from __future__ import annotations

import pytest

from db.seeds.dictionary import is_english_word
from db.text import paper_id, repair_hyphenation
from tests.db_support import all_hits


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
