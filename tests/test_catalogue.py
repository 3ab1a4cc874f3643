"""Catalogues (seed files of titles without abstracts) made one with the abstracts they describe:
tests/data/catalogue/icml_catalogue_sample.jsonl beside the shipped seeds, and ICML 2025's whole
catalogue when PAPERTRAY_CORPORA points at the folder holding it (skipped otherwise)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from db import Library
from db.search.known import same_year
from db.seeds.formats import title_id
from tests.db_support import DATA, FILE_A, FILE_B, SHIPPED_SEEDS, all_hits, copy_seeds, corpus_file

SAMPLE = DATA / "catalogue" / "icml_catalogue_sample.jsonl"
PARM, PARM_TITLE = "0412d482992496cb", (
    "PARM: Multi-Objective Test-Time Alignment via Preference-Aware Autoregressive Reward Model")
SECANT = "40c95233b8283b2f"  # its title and a near-duplicate of it are both in the sample
#: the sample's real titles of shipped abstracts, by abstract id
MATCHED = {
    PARM: PARM_TITLE,
    "c057113414b26ea0": "MTL-UE: Learning to Learn Nothing for Multi-Task Learning",
    "34b4a2c162f59198":
        "S2-Track: A Simple yet Strong Approach for End-to-End 3D Multi-Object Tracking",
    "a38c128b7bbe8ffd": "A Two-Stage Learning-to-Defer Approach for Multi-Task Learning",
    "f9bcf61c18d86544":
        "Olica: Efficient Structured Pruning of Large Language Models without Retraining",
    "c6cf5bde67efacf4": "DipLLM: Fine-Tuning LLM for Strategic Decision-making in Diplomacy",
    "ad49c16ff09be583": "ELoRA: Low-Rank Adaptation for Equivariant GNNs",
}
#: the sample's other titles: similar words (decoys), the near-duplicate pair, and one that
#: matches nothing; each stays a paper of its own
TITLE_ONLY = {
    "Test-Time Learning for Large Language Models",
    "Adversarial Robustness in Two-Stage Learning-to-Defer: Algorithms and Guarantees",
    "SlimLLM: Accurate Structured Pruning for Large Language Models",
    "Learning Smooth and Expressive Interatomic Potentials for Physical Property Prediction",
    "(How) Do Language Models Track State?",
    "Targeted Unlearning with Single Layer Unlearning Gradient",
    "Secant Line Search for Frank-Wolfe Algorithms",
    "Secant Line Search for Frank-Wolfe Methods",
    "Topological Codes for Fault-Tolerant Superconducting Qubit Arrays",
}


def _with_sample(tmp_path: Path) -> Path:
    seeds = copy_seeds(tmp_path / "seeds")
    shutil.copy(SAMPLE, seeds / SAMPLE.name)
    return seeds


def _titles(lib: Library) -> dict[str, str | None]:
    """``{id: title}`` of every paper."""
    return {h.id: h.title for h in all_hits(lib)}


def _outcomes(report) -> tuple[int, int, int]:
    return report.matched, report.ambiguous, report.unmatched


def test_a_catalogue_gives_its_abstracts_their_titles(tmp_path):
    with Library([copy_seeds(tmp_path / "seeds")], tmp_path / "data") as lib:
        lib.sync()
        before = {pid: lib.get(pid) for pid in MATCHED}
        shutil.copy(SAMPLE, tmp_path / "seeds" / SAMPLE.name)
        report = lib.sync()
        assert _outcomes(report) == (7, 1, 8)
        assert (report.papers, report.added, report.changed) == (44, 9, 7)
        titles = _titles(lib)
        assert {pid: titles[pid] for pid in MATCHED} == MATCHED
        assert {t for pid, t in titles.items() if len(pid) == 16 and t and pid not in MATCHED
                } == TITLE_ONLY
        assert titles[SECANT] is None  # its title cannot be told from the near-duplicate
        for pid in MATCHED:  # its catalogue's fields, and its own links after them
            paper, old = lib.get(pid), before[pid]
            assert paper.abstract_markup == old.abstract_markup
            assert (paper.year, paper.venue, paper.collection) == (2025, "ICML", "ICML 2025")
            assert paper.authors and paper.urls[0].startswith("https://icml.cc/virtual/2025/")
            assert (paper.urls[1:], paper.code_url) == (old.urls, old.code_url)
        record = next(json.loads(line) for line in SAMPLE.read_text().splitlines()
                      if json.loads(line)["title"] == PARM_TITLE)
        parm = lib.get(PARM)
        assert (parm.authors, parm.decision, parm.track) == (
            tuple(record["authors"]), "Poster", "main")
        assert ("paper", record["site"]) in parm.own_links
        assert lib.search("preference-aware autoregressive").hits[0].id == PARM
        assert lib.search(f'"{PARM_TITLE}"').total == 1  # one paper, not two


def test_a_first_build_an_added_catalogue_and_a_forced_rebuild_agree(tmp_path):
    seeds = _with_sample(tmp_path)
    with Library([seeds], tmp_path / "first") as first:
        report = first.sync()
        assert (_outcomes(report), report.papers, report.added) == ((7, 1, 8), 44, 44)
        built = _titles(first)
        forced = first.sync(force=True)
        assert (_outcomes(forced), forced.added, forced.removed, forced.changed) == (
            (7, 1, 8), 0, 0, 0)
        assert _titles(first) == built
        again = first.sync()
        assert (_outcomes(again), again.did_change) == ((7, 1, 8), False)
    later = tmp_path / "later"
    with Library([seeds], later) as lib:
        (seeds / SAMPLE.name).rename(tmp_path / SAMPLE.name)
        lib.sync()
        (tmp_path / SAMPLE.name).rename(seeds / SAMPLE.name)
        lib.sync()
        assert _titles(lib) == built


def test_marks_of_a_title_only_paper_follow_it_to_its_abstract(tmp_path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    shutil.copy(SAMPLE, seeds / SAMPLE.name)
    with Library([seeds], tmp_path / "data") as lib:
        report = lib.sync()
        assert (_outcomes(report), report.papers) == ((0, 0, 16), 16)
        alone = title_id(PARM_TITLE)
        lib.set_status([alone], "read")
        lib.set_note(alone, "the reward model")
        lib.tag([alone], ["alignment"])
        lib.set_status([title_id(MATCHED["c057113414b26ea0"])], "to-read")
        copy_seeds(seeds)
        report = lib.sync()
        assert (_outcomes(report), report.reattached, report.orphans) == ((7, 1, 8), 2, 0)
        parm = lib.get(PARM)
        assert (parm.title, parm.status, parm.note, parm.tags) == (
            PARM_TITLE, "read", "the reward model", ("alignment",))
        assert lib.get("c057113414b26ea0").status == "to-read"
        assert lib.orphans() == [] and alone not in _titles(lib)
        # the marks stay with the abstract's paper when the catalogue goes
        (seeds / SAMPLE.name).unlink()
        report = lib.sync()
        assert (_outcomes(report), report.papers, report.orphans) == ((0, 0, 0), 35, 0)
        parm = lib.get(PARM)
        assert (parm.title, parm.status, parm.note) == (None, "read", "the reward model")


def test_the_catalogue_is_matched_again_when_abstracts_come_and_go(tmp_path):
    seeds = _with_sample(tmp_path)
    with Library([seeds], tmp_path / "data") as lib:
        lib.sync()
        in_a = {e for e in MATCHED if e not in _ids_of(lib, FILE_B)}
        only_b = sorted(set(MATCHED) - _ids_of(lib, FILE_A))
        assert in_a and only_b  # abstracts only the first file has, and only the second
        lib.set_status([only_b[0]], "to-read")
        (seeds / FILE_B).rename(tmp_path / FILE_B)
        report = lib.sync()
        titles = _titles(lib)
        assert (report.matched, sum(_outcomes(report))) == (len(in_a), 16)
        assert set(titles) >= in_a
        assert {pid: titles[pid] for pid in in_a} == {pid: MATCHED[pid] for pid in in_a}
        gone = {MATCHED[pid] for pid in MATCHED if pid not in titles}
        assert gone and gone <= set(titles.values())  # title-only papers again
        assert lib.get(title_id(MATCHED[only_b[0]])).decision == "Poster"
        # the mark of an abstract gone is on its title now, and back when the abstract is
        alone = title_id(MATCHED[only_b[0]])
        assert (lib.get(alone).status, report.reattached, report.orphans) == ("to-read", 1, 0)
        (tmp_path / FILE_B).rename(seeds / FILE_B)
        report = lib.sync()
        assert (_outcomes(report), report.papers, report.reattached) == ((7, 1, 8), 44, 1)
        assert {pid: _titles(lib)[pid] for pid in MATCHED} == MATCHED
        assert lib.get(only_b[0]).status == "to-read" and lib.orphans() == []


def _ids_of(lib: Library, file: str) -> set[str]:
    """Ids of the papers seed file ``file`` holds."""
    return {h.id for h in all_hits(lib) if any(s.file == file for s in lib.get(h.id).sources)}


def test_an_edited_catalogue_is_matched_again(tmp_path):
    seeds = _with_sample(tmp_path)
    with Library([seeds], tmp_path / "data") as lib:
        lib.sync()
        lines = (seeds / SAMPLE.name).read_text(encoding="utf-8").splitlines(keepends=True)
        (seeds / SAMPLE.name).write_text(
            "".join(line for line in lines if "Frank-Wolfe Methods" not in line),
            encoding="utf-8")
        report = lib.sync()
        assert (_outcomes(report), report.papers, report.removed, report.changed) == (
            (8, 0, 7), 42, 2, 1)
        assert lib.get(SECANT).title == "Secant Line Search for Frank-Wolfe Algorithms"


def test_abstracts_of_another_year_or_conference_are_not_its_papers(tmp_path):
    seeds = _with_sample(tmp_path)
    for name, header in ((FILE_A, "ICML 2024 Papers"), (FILE_B, "NeurIPS 2025 Papers")):
        text = (seeds / name).read_text(encoding="utf-8")
        (seeds / name).write_text(header + text[text.index("\n"):], encoding="utf-8")
    with Library([seeds], tmp_path / "data") as lib:
        report = lib.sync()
        assert (_outcomes(report), report.papers) == ((0, 0, 16), 35 + 16)
    assert [same_year(c, "ICML 2025") for c in (
        "ICML 2025", "ICML 2025 Workshops", "ICML 2024", "NeurIPS 2025", "My reading list", "")
    ] == [True, True, False, False, True, True]
    assert same_year("NeurIPS 2024", "my papers") and same_year("ICML 2025", "")


def test_a_file_with_one_abstract_is_no_catalogue(tmp_path):
    seeds = copy_seeds(tmp_path / "seeds")
    records = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    records.append({"title": "Another paper", "abstract": "An abstract of another paper."})
    (seeds / "mixed.jsonl").write_text("\n".join(map(json.dumps, records)), encoding="utf-8")
    with Library([seeds], tmp_path / "data") as lib:
        report = lib.sync()
        assert (_outcomes(report), report.papers) == ((0, 0, 0), 35 + 17)
        assert lib.get(PARM).title is None and lib.get(title_id(PARM_TITLE)).title == PARM_TITLE


# -- ICML 2025's catalogue (set PAPERTRAY_CORPORA to its folder; skipped otherwise) ----------

#: The real title of each shipped abstract (by its first words), found by hand in ICML 2025's
#: catalogue.
REAL_TITLES = [
    ("Multi-objective test-time alignment aims to",
     "PARM: Multi-Objective Test-Time Alignment via Preference-Aware Autoregressive Reward "
     "Model"),
    ("Model merging seeks to integrate task-specific",
     "Whoever Started the interference Should End It: Guiding Data-Free Model Merging via Task "
     "Vectors"),
    ("Most existing unlearnable strategies focus on",
     "MTL-UE: Learning to Learn Nothing for Multi-Task Learning"),
    ("Early exits enable the network's forward pass",
     "How to Train Your Multi-Exit Model? Analyzing the Impact of Training Strategies"),
    ("3D multiple object tracking (MOT) plays a",
     "S2-Track: A Simple yet Strong Approach for End-to-End 3D Multi-Object Tracking"),
    ("Visual deep reinforcement learning (RL) enables",
     "MENTOR: Mixture-of-Experts Network with Task-Oriented Perturbation for Visual "
     "Reinforcement Learning"),
    ("Foundation models serve as the backbone for",
     "Update Your Transformer to the Latest Release: Re-Basin of Task Vectors"),
    ("In decision-making problems, the outcome of an",
     "Multi-Objective Causal Bayesian Optimization"),
    ("Multi-sample aggregation strategies, such as",
     "Optimizing Temperature for Language Models with Multi-Sample Inference"),
    ("The Two-Stage Learning-to-Defer (L2D) framework",
     "A Two-Stage Learning-to-Defer Approach for Multi-Task Learning"),
    ("Despite recent advancements in offline",
     "Mastering Massive Multi-Task Reinforcement Learning via Mixture-of-Expert Decision "
     "Transformer"),
    ("Knowledge distillation typically minimizes the",
     "Enhancing Logits Distillation with Plug&Play Kendall's $\\tau$ Ranking Loss"),
    ("A canonical desideratum for prediction problems",
     "Learning With Multi-Group Guarantees For Clusterable Subpopulations"),
    ("The ability to adapt to new environments with",
     "Behavior-agnostic Task Inference for Robust Offline In-context Reinforcement Learning"),
    ("Large language models (LLMs) exhibit remarkable",
     "Task Generalization With AutoRegressive Compositional Structure"),
    ("This work has two contributions. First, we",
     "Byzantine-Resilient Federated Alternating Gradient Descent and Minimization for "
     "Partly-Decoupled Low Rank Matrix Learning"),
    ("Large language models (LLMs) provide excellent",
     "LMRL Gym: Benchmarks for Multi-Turn Reinforcement Learning with Language Models"),
    ("Pre-trained generalist policies are rapidly",
     "Active Fine-Tuning of Multi-Task Policies"),
    ("Bipartite ranking is a fundamental supervised",
     "Bipartite Ranking From Multiple Labels: On Loss Versus Label Aggregation"),
    ("Tensor regression is a powerful tool for",
     "Low-Rank Tensor Transitions (LoRT) for Transferable Tensor Regression"),
    ("Advances in large models, reinforcement",
     "Craftium: Bridging Flexibility and Efficiency for Rich 3D Single- and Multi-Agent "
     "Environments"),
    ("Safe offline reinforcement learning (RL), which",
     "Q-Supervised Contrastive Representation: A State Decoupling Framework for Safe Offline "
     "Reinforcement Learning"),
    ("Sparse Mixture-of-Experts (SMoE) models",
     "Retraining-free Merging of Sparse Mixture-of-Experts via Hierarchical Clustering"),
    ("Developing AI agents capable of interacting with",
     "MCU: An Evaluation Framework for Open-Ended Game Agents"),
    ("Multi-objective optimization (MOO) exists",
     "Voronoi-grid-based Pareto Front Learning and Its Application to Collaborative Federated "
     "Learning"),
    ("Vision Transformers (ViT) are remarkable at 3D",
     "ExtPose: Robust and Coherent Pose Estimation with Expanding ViT"),
    ("Retrieval-augmented generation (RAG) systems",
     "C-3PO: Compact Plug-and-Play Proxy Optimization to Achieve Human-like "
     "Retrieval-Augmented Generation"),
    ("Most existing structured pruning methods for",
     "Olica: Efficient Structured Pruning of Large Language Models without Retraining"),
    ("We present a new step-size strategy based on",
     "Secant Line Search for Frank-Wolfe Algorithms"),
    ("Diplomacy is a complex multiplayer game that",
     "DipLLM: Fine-Tuning LLM for Strategic Decision-making in Diplomacy"),
    ("Multiple Instance Learning (MIL) is a",
     "Do Multiple Instance Learning Models Transfer?"),
    ("Pre-trained interatomic potentials have become",
     "ELoRA: Low-Rank Adaptation for Equivariant GNNs"),
    ("Existing prompt-based approaches have",
     "iDPA: Instance Decoupled Prompt Attention for Continual Medical Object Detection"),
    ("Boosting provides a practical and provably",
     "Sample-Optimal Agnostic Boosting with Unlabeled Data"),
    ("Molecular structure generation is a fundamental",
     "Energy-Based Flow Matching for Generating 3D Molecular Structure"),
]


def test_icml_catalogue_titles_the_shipped_abstracts(tmp_path):
    """At least 33 of the 35 shipped abstracts get their real title, and none a wrong one."""
    path = corpus_file("icml2025_catalogue.jsonl")
    seeds = copy_seeds(tmp_path / "seeds", SHIPPED_SEEDS)
    with Library([seeds], tmp_path / "data") as lib:
        alone = lib.sync().seconds
        shutil.copy(path, seeds / path.name)
        started = time.perf_counter()
        report = lib.sync()
        took = time.perf_counter() - started
        by_start = {}
        for hit in all_hits(lib):
            paper = lib.get(hit.id)
            if paper.abstract_source:
                by_start[paper.abstract_source[:60]] = paper.title
    assert len(by_start) == 35
    found = {start: next(t for s, t in by_start.items() if s.startswith(start))
             for start, _ in REAL_TITLES}
    right = [start for start, title in REAL_TITLES if found[start] == title]
    wrong = [(found[start], title) for start, title in REAL_TITLES
             if found[start] not in (None, title)]
    print(f"catalogue: {len(right)} right, {len(wrong)} wrong, {35 - len(right) - len(wrong)} "
          f"untitled; seeds alone {alone:.2f} s, the catalogue added {took:.2f} s")
    assert wrong == []
    assert len(right) >= 33
    assert (report.matched, report.matched + report.ambiguous + report.unmatched) == (
        len(right), 3340)
    assert report.papers == 35 + 3340 - len(right)
