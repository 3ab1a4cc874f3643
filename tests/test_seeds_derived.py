"""Fields derived from an abstract: the name it introduces, its headline, its code link."""

from __future__ import annotations

import pytest

from db.seeds.dictionary import is_english_word
from db.seeds.entry import SeedError
from db.seeds.plain import parse_text
from db.seeds.read import parse_file
from tests.db_support import FILE_A, FILE_B, SHIPPED_SEEDS, _parse, all_hits, first_words

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
