"""The benchmark runs (a smoke test at a small size; the figures are not judged here)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_the_benchmark_prints_its_table(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), "--sizes", "200",
                          "--repeat", "1", "--keep", str(tmp_path / "work")],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    rows = [line.split("|")[1].strip() for line in out.splitlines() if line.startswith("| ")]
    assert rows[1:] == ["cold sync (s)", "warm start: stats (s)", "search p50 (ms)",
                        "search p95 (ms)", "one of ~50 files edited → sync (s)",
                        "index size (MiB)", "sync peak RSS (MiB)",
                        "browser: first frame + exit (s)",
                        "browser: first page of hits + exit (s)",
                        "browser: keystroke → repaint p95 (ms)",
                        "browser: keystroke → repaint p50 (ms)", "browser: peak RSS (MiB)"]
    assert "## 200 synthetic abstracts" in out
    figures = [line.split("|")[2].strip() for line in out.splitlines()
               if line.startswith("| ") and not line.startswith("| figure")]
    assert all(float(f) > 0 for f in figures), out  # every figure was measured


def test_the_recall_benchmark_prints_its_table(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, str(REPO / "bench" / "recall.py"), "--sizes", "200",
                          "--queries", "20", "--keep", str(tmp_path / "work")],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in out.splitlines()
            if line.startswith("| ") and "recall@1" not in line]
    assert [row[:2] for row in rows] == [
        [cond, name] for cond in ("clean", "typos")
        for name in ("papertray", "FTS5 AND", "FTS5 OR (bm25)")]
    assert "## 200 abstracts, 20 title queries" in out
    recall_at_10 = {(row[0], row[1]): float(row[4]) for row in rows}
    # titles made of an abstract's own words: every search finds them when spelt right
    assert recall_at_10["clean", "papertray"] == 1.0
    assert recall_at_10["typos", "papertray"] > recall_at_10["typos", "FTS5 AND"]


def test_the_keystroke_benchmark_types_every_prefix(tmp_path: Path) -> None:
    from tests.db_support import copy_seeds

    seeds = copy_seeds(tmp_path / "seeds")
    out = subprocess.run([sys.executable, str(REPO / "bench" / "keystrokes.py"), str(seeds),
                          str(tmp_path / "data"), "--query", "reinforcement"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert "'reinforcem' " in out and out.strip().endswith("over 13 keystrokes, 60 hits a page")


def test_the_relevance_benchmark_scores_both_searches(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, str(REPO / "bench" / "relevance.py"), "--sample",
                          "--json", "--keep", str(tmp_path / "work")],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    figures = json.loads(out)
    assert (figures["papers"], figures["queries"]) == (60, 5)
    for search in ("papertray", "FTS5 bm25"):
        assert set(figures[search]) == {"nDCG@10", "Recall@100", "MRR@10"}
        # each query's first paper has all its topic words: both searches put one first
        assert figures[search]["MRR@10"] == 1.0
        assert 0.5 < figures[search]["nDCG@10"] <= 1.0
    # the OR of the words finds every judged paper; papertray's short queries need all words
    assert figures["FTS5 bm25"]["Recall@100"] == 1.0
    assert 0.5 < figures["papertray"]["Recall@100"] <= 1.0
    assert 0 < figures["p50 ms"] <= figures["p95 ms"]


def test_the_latency_benchmark_times_each_length_in_a_sort_order(tmp_path: Path) -> None:
    from tests.db_support import copy_seeds

    seeds = copy_seeds(tmp_path / "seeds")
    out = subprocess.run([sys.executable, str(REPO / "bench" / "latency.py"), str(seeds),
                          str(tmp_path / "data"), "--words", "0,3", "--queries", "12",
                          "--sort", "name"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    rows = [line.split("|")[1:-1] for line in out.splitlines()[2:]]
    assert [(int(r[0]), int(r[1])) for r in rows] == [(0, 12), (3, 12)]
    assert all(0 < float(r[2]) <= float(r[3]) <= float(r[4]) for r in rows)


def test_the_saved_search_benchmark_counts_and_cleans_up(tmp_path: Path) -> None:
    from db import Library
    from tests.db_support import copy_seeds

    seeds, data = copy_seeds(tmp_path / "seeds"), tmp_path / "data"
    out = subprocess.run([sys.executable, str(REPO / "bench" / "saved.py"), str(seeds),
                          str(data), "--searches", "5"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    row = out.splitlines()[2].split("|")[1:-1]
    assert int(row[0]) == 5 and float(row[1]) >= 1  # a passage of an abstract finds it
    assert 0 < float(row[2]) <= float(row[3]) <= float(row[4])
    with Library([seeds], data) as library:
        assert library.saved_searches() == []


def test_the_switching_benchmark_times_both_ways_and_a_warm_start(tmp_path: Path) -> None:
    from tests.db_support import FILE_A, FILE_B, SHIPPED_SEEDS

    for name, file in (("a", FILE_A), ("b", FILE_B)):
        (tmp_path / name).mkdir()
        (tmp_path / name / file).write_bytes((SHIPPED_SEEDS / file).read_bytes())
    out = subprocess.run([sys.executable, str(REPO / "bench" / "switching.py"),
                          str(tmp_path / "a"), str(tmp_path / "b"), "--repeat", "1"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    lines = out.splitlines()
    assert lines[0] == "medians of 1 runs, wall seconds of `papertray list --limit 20`"
    assert lines[1].split() == ["this"]
    rows = [line.rsplit(None, 1) for line in lines[2:]]
    assert [row[0].strip() for row in rows] == [
        "warm start (A after A)", "switch A -> B", "switch B -> A"]
    assert all(float(row[1]) > 0 for row in rows)


def test_the_one_file_benchmark_times_each_layout(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, str(REPO / "bench" / "one_file.py"), "--papers", "300",
                          "--repeat", "1", "--browser", "--keep", str(tmp_path / "work")],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in out.splitlines()
            if line.startswith("| ") and "seed files" not in line]
    assert [row[0] for row in rows] == ["one .jsonl.gz", "50 .jsonl.gz", "50 .txt"]
    assert "## first build of 300 abstracts (median of 1)" in out
    assert all(float(cell) > 0 for row in rows for cell in row[1:])  # every figure measured
    assert rows[2][2] == rows[2][4] == "1.00"  # (the base of the ratios)


def test_the_one_file_benchmark_also_times_the_abstracts_alone(tmp_path: Path) -> None:
    """``bare`` and ``onetext``: the same abstracts as the text files, without the records'
    other fields, as one ``.jsonl.gz`` file and as one text file."""
    work = tmp_path / "work"
    out = subprocess.run([sys.executable, str(REPO / "bench" / "one_file.py"), "--papers", "300",
                          "--repeat", "1", "--layouts", "bare,onetext,text", "--keep", str(work)],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in out.splitlines()
            if line.startswith("| ") and "seed files" not in line]
    assert [row[0] for row in rows] == ["50 .txt", "one .jsonl.gz, abstracts only", "one .txt"]
    assert not (work / "seeds" / "one").exists()  # (a layout not asked for is not written)
    with gzip.open(work / "seeds" / "bare" / "papers.jsonl.gz", "rt", encoding="utf-8") as fh:
        bare = [json.loads(line) for line in fh]
    assert len(bare) == 300 and all(list(r) == ["abstract"] for r in bare)
    [one_text] = (work / "seeds" / "onetext").iterdir()
    paragraphs = one_text.read_text(encoding="utf-8").strip().split("\n\n")
    assert paragraphs[1:] == [r["abstract"] for r in bare]  # (after the header line)
    assert all(float(cell) > 0 for row in rows for cell in row[1:])


def test_the_catalogue_benchmark_prints_its_table(tmp_path: Path) -> None:
    sample = REPO / "tests" / "data" / "catalogue" / "icml_catalogue_sample.jsonl"
    out = subprocess.run([sys.executable, str(REPO / "bench" / "catalogue.py"), str(sample),
                          "--papers", "100", "--keep", str(tmp_path / "work")],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    rows = dict(tuple(cell.strip() for cell in line.split("|")[1:3])
                for line in out.splitlines()
                if line.startswith("| ") and "figure" not in line and "---" not in line)
    counts = [int(n) for n in rows["titles matched / ambiguous / unmatched"].split(" / ")]
    assert sum(counts) == 16 and rows["shipped abstracts titled"] == f"{counts[0]} of 35"
    assert all(float(rows[name]) > 0 for name in list(rows)[:4]), out  # every time measured
    assert "## 135 abstracts (100 of the corpus, one file per collection)" in out


def test_the_names_benchmark_counts_shared_and_latex_names(tmp_path: Path) -> None:
    """bench/names.py on a small corpus: two papers deriving one name are counted as sharing
    it, a library built from them shows it for neither."""
    corpus = tmp_path / "corpus.jsonl"
    abstracts = [f"Paper {i} studies problem {i} at length, with words enough." for i in range(6)]
    abstracts += ["Clustering is hard. We propose FooNet, a model of clusters.",
                  "Retrieval is hard. We introduce FooNet, a model of retrieval.",
                  "Tables are hard. We present BarNet, a model of tables."]
    corpus.write_text("".join(json.dumps({"abstract": a}) + "\n" for a in abstracts),
                      encoding="utf-8")
    out = subprocess.run([sys.executable, str(REPO / "bench" / "names.py"), str(corpus),
                          "--sizes", "9", "--files", "2", "--build"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    assert "derived: 3 of 9 papers named, 2 share their name (66.7%), 0 LaTeX-looking" in out
    assert "most shared: foonet 2" in out
    assert "rule on : 1 of 9 papers named, 0 share their name (0.0%)" in out
