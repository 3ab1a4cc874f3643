"""The odd seed files of tests/data/seeds-odd/ (see its README), next to the shipped seeds."""

from __future__ import annotations

import io
import os

import pytest
import sqlite_utils

from db import Library
from tests.db_support import FILE_A, FILE_B, ODD_SEEDS, all_hits, copy_seeds

ODD_FILES = ["bom_crlf.txt", "brackets.txt", "cjk.txt", "empty.txt", "header_only.txt",
             "latex.txt", "latin1.txt"]


@pytest.fixture
def odd_folder(tmp_path):
    return copy_seeds(tmp_path / "seeds", ODD_SEEDS.parent.parent.parent / "seeds", ODD_SEEDS)


@pytest.fixture
def odd_library(odd_folder, data_dir):
    lib = Library([odd_folder], data_dir)
    lib.report = lib.sync()
    yield lib
    lib.close()


def _in(lib: Library, filename: str):
    return [h for h in all_hits(lib) if any(s.file == filename for s in h.sources)]


def test_the_odd_folder_is_what_the_tests_expect():
    assert sorted(p.name for p in ODD_SEEDS.iterdir()) == ODD_FILES


def test_every_readable_abstract_loads_and_the_others_are_reported(odd_library):
    report = odd_library.report
    assert [(f.path, f.status, f.entries, f.reason) for f in report.files] == [
        (FILE_A, "loaded", 19, ""), (FILE_B, "loaded", 19, ""),
        ("bom_crlf.txt", "loaded", 2, ""), ("brackets.txt", "loaded", 2, ""),
        ("cjk.txt", "loaded", 2, ""), ("empty.txt", "empty", 0, "empty file"),
        ("header_only.txt", "empty", 0, "header only, no abstracts"),
        ("latex.txt", "loaded", 2, ""), ("latin1.txt", "loaded", 1, ""),
    ]
    assert (report.papers, report.added, report.orphans) == (44, 44, 0)
    stats = odd_library.stats()
    assert (stats["papers"], stats["entries"], stats["files"]) == (44, 47, 7)
    assert stats["collections"] == {
        "ICML 2025": 35, "Bracket Workshop 2025": 2, "LaTeX Workshop 2025": 2,
        "Workshop 2024 Papers": 2, "中文论文列表": 2, "Latin-1 Workshop": 1}
    assert stats["problems"] == [
        {"file": "empty.txt", "reason": "empty file"},
        {"file": "header_only.txt", "reason": "header only, no abstracts"}]
    assert odd_library.fts_ok()


def test_bom_and_crlf_leave_no_trace(odd_library):
    papers = _in(odd_library, "bom_crlf.txt")
    assert [h.collection for h in papers] == ["Workshop 2024 Papers"] * 2
    assert [h.headline for h in papers] == [
        "We study graph attention networks on citation data and report state-of-the-art accuracy.",
        "A second abstract about contrastive representation learning for robots."]
    index = sqlite_utils.Database(odd_library.paths.index)
    for table in ("papers", "files"):
        for row in index[table].rows:
            for value in row.values():
                if isinstance(value, str):
                    assert "\r" not in value and "\ufeff" not in value, (table, row)


def test_latin1_is_decoded_and_found_without_diacritics(odd_library):
    [paper] = _in(odd_library, "latin1.txt")
    assert paper.headline == (
        "We revisit the Schrödinger equation with neural solvers and report a 15% speed-up.")
    assert paper.collection == "Latin-1 Workshop"
    for query in ("schrodinger", "Schrödinger", "SCHRÖDINGER", "schrod"):
        assert [h.id for h in odd_library.search(query, typing=True).hits] == [paper.id]


def test_cjk_words_inside_sentences_are_found(odd_library):
    graph, bert = _in(odd_library, "cjk.txt")
    assert graph.headline.startswith("本文提出了一种图神经网络方法")
    assert bert.headline.startswith("我们研究基于BERT的模型")
    assert [h.id for h in odd_library.search("图神经网络").hits] == [graph.id]
    assert [h.id for h in odd_library.search("BERT").hits] == [bert.id]
    result = odd_library.search("BERT")
    assert (result.notice, result.effective_query) == ("", "bert")  # a known word: not corrected
    assert [h.id for h in odd_library.search("神经网络", typing=True).hits] == [graph.id]
    assert [h.id for h in odd_library.search("基于BERT的模型").hits] == [bert.id]
    assert [h.id for h in odd_library.search("网络 -BERT").hits] == [graph.id]
    assert odd_library.search("图神经网络").effective_query == "图神经网络"
    assert odd_library.search("神经网络图").total == 0  # characters in another order: no match
    assert odd_library.stats()["collections"]["中文论文列表"] == 2
    # the index stores each CJK character as a token of its own; ASCII abstracts are not copied
    index = sqlite_utils.Database(odd_library.paths.index)
    row = next(index.query("SELECT abstract, body FROM papers WHERE id = ?", [bert.id]))
    assert row["abstract"].startswith("我们研究基于BERT的模型")
    assert row["body"].startswith(" 我  们  研  究  基  于 BERT 的  模  型 ")
    assert [r["n"] for r in index.query(
        "SELECT count(*) AS n FROM papers WHERE body IS NOT NULL AND abstract NOT GLOB '*[^ -~]*'"
    )] == [0]


def test_cjk_through_the_cli(odd_folder, run_cli):
    graph = run_cli("search", "图神经网络", "--json", seeds=odd_folder).json()
    assert [h["headline"][:7] for h in graph["hits"]] == ["本文提出了一种"]
    bert = run_cli("search", "BERT", "--json", seeds=odd_folder).json()
    assert [h["headline"][:8] for h in bert["hits"]] == ["我们研究基于BE"]


def test_brackets_show_literally(odd_library, run_cli, odd_folder):
    first, second = _in(odd_library, "brackets.txt")
    assert first.headline == (
        "As shown in [1] and [2, 3], pooling the [CLS] token is a strong baseline for sentence "
        "embeddings.")
    assert second.headline == "We define the set [a, b] on the interval [0, 1) and prove a bound."
    paper = odd_library.get(second.id).to_json()
    assert paper["abstract"] == paper["abstract_source"] == second.headline
    assert [h.id for h in odd_library.search("[CLS]").hits] == [first.id]
    shown = run_cli("show", first.short_id, seeds=odd_folder)
    assert shown.exit_code == 0
    assert first.headline in shown.stdout
    listed = run_cli("search", "[CLS]", seeds=odd_folder)
    assert listed.stdout.startswith(first.short_id)
    assert "[1] and [2, 3], pooling the [CLS] token" in listed.stdout


def test_latex_renders_readably(odd_library):
    formula, brace = _in(odd_library, "latex.txt")
    shown = odd_library.get(formula.id).to_json()
    assert shown["abstract"] == (
        "On a graph 𝒢 over ℝⁿ we prove that accuracy improves by 15% on ImageNet while halving "
        "compute, in vivo and in silico.")
    assert shown["abstract_source"].startswith(r"On a graph $\mathcal{G}$ over $\mathbb{R}^n$")
    assert formula.headline == shown["abstract"]
    fixed = odd_library.get(brace.id).to_json()
    assert fixed["abstract"] == fixed["abstract_source"] == (
        "We fix the bound } in Lemma 2 and release code at https://github.com/example/fix-bound.")
    assert fixed["code_url"] == "https://github.com/example/fix-bound"
    assert [h.id for h in odd_library.search("imagenet halving").hits] == [formula.id]


def test_marks_survive_loading_and_unloading_the_odd_files(seeds_copy, data_dir):
    with Library([seeds_copy], data_dir) as lib:
        lib.sync()
        marked = {h.id: s for h, s in zip(all_hits(lib)[:3], ("read", "to-read", "read"),
                                          strict=True)}
        for pid, status in marked.items():
            lib.set_status([pid], status)
    copy_seeds(seeds_copy, ODD_SEEDS)
    with Library([seeds_copy], data_dir) as lib:
        report = lib.sync()
        assert (report.papers, report.added, report.removed, report.orphans) == (44, 9, 0, 0)
        assert {h.id: h.status for h in all_hits(lib) if h.status != "new"} == marked
        brackets = _in(lib, "brackets.txt")[0]
        lib.set_status([brackets.id], "to-read")
    for name in ODD_FILES:
        (seeds_copy / name).unlink()
    with Library([seeds_copy], data_dir) as lib:
        report = lib.sync()
        assert (report.papers, report.removed, report.orphans) == (35, 9, 1)
        assert {h.id: h.status for h in all_hits(lib) if h.status != "new"} == marked
        assert [o[0] for o in lib.orphans()] == [brackets.id]


def test_an_unreadable_file_keeps_what_the_index_had(odd_library, odd_folder, monkeypatch):
    [paper] = _in(odd_library, "latin1.txt")
    target = odd_folder / "latin1.txt"
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    real_open = io.open

    def refuse(file, *args, **kwargs):  # running as root, chmod 000 would not stop a read
        if str(file) == str(target):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(io, "open", refuse)
    report = odd_library.sync()
    assert [(f.path, f.status, f.reason) for f in report.files if f.path == "latin1.txt"] == [
        ("latin1.txt", "error", "Permission denied")]
    assert (report.papers, report.removed) == (44, 0)
    assert [h.id for h in odd_library.search("schrodinger").hits] == [paper.id]

    monkeypatch.undo()
    report = odd_library.sync()
    assert [(f.path, f.status) for f in report.files if f.path == "latin1.txt"] == [
        ("latin1.txt", "unchanged")]
    assert (report.papers, report.added, report.removed) == (44, 0, 0)


def test_japanese_and_korean_words_inside_sentences_are_found(tmp_path):
    seeds = tmp_path / "cjk"
    seeds.mkdir()
    (seeds / "jako.txt").write_text(
        "アジア 2025\n\n日本語の論文です。グラフニューラルネットワークを提案する。\n\n"
        "우리는 한국어 신경망을 학습하는 방법을 제안한다.\n", encoding="utf-8")
    with Library([seeds], tmp_path / "data") as lib:
        lib.sync()
        japanese, korean = all_hits(lib)
        for query, paper in (("ニューラル", japanese), ("論文", japanese), ("신경망", korean),
                             ("신경망을 학습", korean)):
            result = lib.search(query)
            assert ([h.id for h in result.hits], result.effective_query) == ([paper.id], query)
        assert lib.fts_ok()
