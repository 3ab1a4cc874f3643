"""Names that name: a derived name is what the abstract introduces (not a tool it uses, never
LaTeX), and a name several papers of one library derive is shown by none of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from db import Library
from db.index.sync import fts_integrity_ok
from db.seeds.derive import method_name
from db.seeds.dictionary import is_english_word
from tests.db_support import all_hits


@pytest.mark.parametrize("abstract", [
    # a dataset, a sensor or a tool named after the phrase the verb introduces
    "To address this issue, we propose a progressive enhancement learning framework to exploit "
    "both the RGB and fine-grained frequency clues.",
    "Using the deformable-part-model detector as the baseline, we test the proposed evolution "
    "framework on the PASCAL VOC 2007 dataset and the Caltech pedestrian dataset.",
    # "Named" is no verb here, and NER the field's task
    "Named Entity Recognition (NER) is the task of identifying spans that represent entities "
    "in sentences.",
    # a well-known model qualifying a kind of thing
    "In this paper, we propose a novel multi-input LSTM model which is capable of extracting "
    "valuable information from low-correlated factors.",
    "We present an efficient MCMC sampler for this model and discuss the estimation of module "
    "networks.",
    # another paper's method, and this paper's method referred to
    "Chen et al. (2015) proposed HashedNets, which augments a multi-layer perceptron with a "
    "hash table.",
    "The proposed tracker can perform at 160 FPS on short-term benchmarks.",
    # a link's path
    "We have released our code at https://github.com/AndrewZhe/Three-Sentences.",
])
def test_a_name_the_abstract_only_uses_is_no_name(abstract):
    assert method_name(abstract, is_english_word) is None


@pytest.mark.parametrize(("abstract", "name"), [
    ("We present a new algorithm named Supervised Contrastive Adjustment in Neighborhood "
     "(SCAN) that maximally prevents the semantic guidance from damaging the appearance "
     "feature embedding.", "SCAN"),
    ("To address these issues, we propose a novel State VAlue Generation based framework "
     "(SVAG), decomposing DST into state value generation.", "SVAG"),
    ("First, we introduce a network, X2Face, that can control a source face.", "X2Face"),
    ("This paper proposes a new evaluation framework, Story Oriented Dense video cAptioning "
     "evaluation framework (SODA), for measuring the performance of video story description "
     "systems.", "SODA"),
    ("We propose Multi-Task Decision Transformer with MoE for a hundred tasks: it is called "
     "M3DT.", "M3DT"),
])
def test_a_name_the_abstract_introduces_is_its_name(abstract, name):
    assert method_name(abstract, is_english_word) == name


@pytest.mark.parametrize(("abstract", "name"), [
    # braces lost: the command glued to the word
    (r"We propose \emphNested LSTMs (NLSTM), a novel RNN architecture with multiple levels "
     "of memory.", "NLSTM"),
    (r"We address these drawbacks by proposing a non-adaptive normalization technique for "
     r"removing covariate shift, that we call \textitNormalization Propagation.", None),
    (r"To address this, we introduce \textit{Minecraft Universe} (MCU), a comprehensive "
     "evaluation framework.", "MCU"),
    (r"We introduce \textbf{\textsc{GraphZip}}, a compressor for graphs.", "GraphZip"),
    (r"We study linear sets over \mathbbN_0 and introduce the \mathcal{RTD}-Net model.",
     "RTD-Net"),
    ("Attention in the so-called Transformer is studied. We propose to prune it.", None),
])
def test_a_latex_wrapped_name_is_the_clean_name_or_none(abstract, name):
    got = method_name(abstract, is_english_word)
    assert got == name
    assert got is None or not any(w in got for w in ("\\", "textit", "emph", "textbf",
                                                     "mathbb", "mathcal", "textsc"))


# -- the library's rule ---------------------------------------------------------------------

SCAN_A = ("Fully-supervised and self-supervised methods pursue different kinds of features. "
          "To alleviate this issue, we present a new algorithm named Supervised Contrastive "
          "Adjustment in Neighborhood (SCAN) that keeps the semantic guidance from damaging "
          "the appearance features.")
SCAN_B = ("Unsupervised domain adaptation suffers from the disagreement of class-specific "
          "distributions in the two domains. To overcome these two challenges, we propose a "
          "novel Semantic Conditioned AdaptatioN (SCAN) framework such that well-modeled "
          "semantics can support semantic conditioned adaptation.")
OTHER = ("Tensor regression is studied under model shifts. We propose the Low-Rank Tensor "
         "Transitions (LoRT) framework, which incorporates a novel fusion regularizer.")


def _write(folder: Path, name: str, *abstracts: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("TEST 2025 Papers\n\n" + "\n\n".join(abstracts) + "\n",
                               encoding="utf-8")


def _shown(lib: Library) -> list[tuple[str, str | None]]:
    """(the abstract's first word, the name shown) of every paper, sorted."""
    return sorted(((lib.get(h.id).abstract_source.split()[0], h.name) for h in all_hits(lib)),
                  key=str)


def test_two_papers_deriving_one_name_both_show_none_until_one_goes(tmp_path):
    """The rule holds after each incremental sync: a paper added with a name another paper
    already shows hides both; removing it gives the other its name back. The name stays
    searchable (the FTS indexes the derived name) and the FTS index stays whole."""
    seeds, data = tmp_path / "seeds", tmp_path / "data"
    _write(seeds, "a.txt", SCAN_A, OTHER)
    with Library([seeds], data) as lib:
        lib.sync()
        assert _shown(lib) == [("Fully-supervised", "SCAN"), ("Tensor", "LoRT")]

        _write(seeds, "b.txt", SCAN_B)
        lib.sync()
        assert _shown(lib) == [("Fully-supervised", None), ("Tensor", "LoRT"),
                               ("Unsupervised", None)]
        found = all_hits(lib, "scan")
        assert len(found) == 2 and {h.name for h in found} == {None}
        assert all(h.headline for h in found)  # the table shows the headline instead
        assert fts_integrity_ok(lib._index())

        (seeds / "b.txt").unlink()
        lib.sync()
        assert _shown(lib) == [("Fully-supervised", "SCAN"), ("Tensor", "LoRT")]
        assert fts_integrity_ok(lib._index())

        lib.sync(force=True)  # a rebuild derives every name again: the same rule
        assert _shown(lib) == [("Fully-supervised", "SCAN"), ("Tensor", "LoRT")]


def test_the_same_abstract_in_two_files_is_one_paper_and_keeps_its_name(tmp_path):
    seeds, data = tmp_path / "seeds", tmp_path / "data"
    _write(seeds, "a.txt", SCAN_A)
    _write(seeds, "b.txt", SCAN_A, OTHER)
    with Library([seeds], data) as lib:
        lib.sync()
        assert _shown(lib) == [("Fully-supervised", "SCAN"), ("Tensor", "LoRT")]


def test_a_name_shared_case_folded_is_hidden_in_a_large_first_build(tmp_path):
    """A first build large enough to stream (its secondary indexes made after the rows) hides
    the shared names too, whatever their case."""
    seeds, data = tmp_path / "seeds", tmp_path / "data"
    filler = [f"Paper {i} studies the {i}th problem of learning at length. " + "Words " * 150
              for i in range(300)]
    _write(seeds, "big.txt", *filler, SCAN_A, OTHER)
    _write(seeds, "more.txt", SCAN_B.replace("AdaptatioN (SCAN)", "AdaptatioN (ScAN)"))
    with Library([seeds], data) as lib:
        lib.sync()
        named = {h.name for h in all_hits(lib)} - {None}
        assert named == {"LoRT"}
        assert len(all_hits(lib, "scan")) == 2
