"""Ad hoc relevance benchmark: papertray's search against plain FTS5 bm25 on judged queries.

    python bench/relevance.py COLLECTION_DIR [--queries N] [--keep DIR]
    python bench/relevance.py --sample          # a small generated collection, for CI

A collection is a folder with ``*.jsonl`` (one paper a line: ``id``, ``title``, ``abstract``),
``queries.json`` (``{query id: text}``) and ``qrels.json`` (``{query id: {paper id: gain}}``,
gains > 0 relevant), as the Cranfield, NFCorpus and SciFact conversions of BEIR are laid out.

Both searches run in one process on the same papers: papertray (a library synced from the
collection's file as its only seed file, ``Library.search`` with the query as typed, 100 hits)
and the baseline of the BEIR lexical runs in SQLite: an FTS5 table of title and abstract
(``tokenize='porter unicode61'``) queried with the OR of the query's words and ranked by
``bm25(t, 2.0, 1.0)``. It prints nDCG@10 (linear gains, the ideal ranking from every judged
paper), Recall@100 and MRR@10 (gain > 0 is relevant), means over the judged queries, and the
p50/p95 time of papertray's search in ms. ``--json`` prints the same figures as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from db import Library  # noqa: E402
from db.seeds.read import parse_file  # noqa: E402

DEPTH = 100  # hits read per query: Recall@100
_WORD_RE = re.compile(r"[^\W_]+")


def load(folder: Path) -> tuple[Path, dict[str, str], dict[str, dict[str, int]]]:
    """``(papers file, queries, qrels)`` of a collection folder; only judged queries kept."""
    papers = next(iter(sorted(folder.glob("*.jsonl"))), None)
    if papers is None:
        raise SystemExit(f"no *.jsonl of papers in {folder}")
    queries = json.loads((folder / "queries.json").read_text(encoding="utf-8"))
    qrels = json.loads((folder / "qrels.json").read_text(encoding="utf-8"))
    judged = {q: {d: int(g) for d, g in rel.items() if int(g) > 0} for q, rel in qrels.items()}
    return papers, {q: t for q, t in queries.items() if judged.get(q)}, judged


def ndcg_at_10(ranked: list[str], gains: dict[str, int]) -> float:
    dcg = sum(gains.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sum(g / math.log2(i + 2)
                for i, g in enumerate(sorted(gains.values(), reverse=True)[:10]))
    return dcg / ideal if ideal else 0.0


def recall_at_100(ranked: list[str], gains: dict[str, int]) -> float:
    return len(set(ranked[:100]) & gains.keys()) / len(gains)


def mrr_at_10(ranked: list[str], gains: dict[str, int]) -> float:
    return next((1 / (i + 1) for i, d in enumerate(ranked[:10]) if d in gains), 0.0)


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))] if values else 0.0


def scores(runs: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> dict[str, float]:
    """Mean nDCG@10, Recall@100 and MRR@10 of ``{query id: ranked paper ids}``."""
    n = len(runs) or 1
    return {name: sum(metric(runs[q], qrels[q]) for q in runs) / n
            for name, metric in (("nDCG@10", ndcg_at_10), ("Recall@100", recall_at_100),
                                 ("MRR@10", mrr_at_10))}


class Baseline:
    """Plain FTS5 over title and abstract, OR of the words, ``bm25(t, 2.0, 1.0)``."""

    def __init__(self, records: list[dict]):
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE t USING fts5(title, abstract, "
                          "tokenize='porter unicode61')")
        self.ids = [str(r["id"]) for r in records]
        self.conn.executemany("INSERT INTO t(rowid, title, abstract) VALUES (?, ?, ?)",
                              [(i, r.get("title") or "", r.get("abstract") or "")
                               for i, r in enumerate(records)])

    def search(self, text: str) -> list[str]:
        words = _WORD_RE.findall(unicodedata.normalize("NFKC", text).casefold())
        if not words:
            return []
        expr = " OR ".join('"' + w + '"' for w in dict.fromkeys(words))
        return [self.ids[r[0]] for r in self.conn.execute(
            "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t, 2.0, 1.0) LIMIT ?",
            (expr, DEPTH))]


def papertray_library(papers: Path, work: Path) -> tuple[Library, dict[str, str]]:
    """A library synced from ``papers`` (copied into ``work/seeds``) and ``{papertray paper id:
    collection id}`` (entries and lines in the same order)."""
    seeds = work / "seeds"
    seeds.mkdir(parents=True, exist_ok=True)
    copy = seeds / papers.name
    if not copy.exists() or copy.read_bytes() != papers.read_bytes():
        shutil.copyfile(papers, copy)
    records = [json.loads(line) for line in copy.read_text(encoding="utf-8").splitlines()
               if line.strip()]
    _, entries = parse_file(copy, copy.read_bytes())
    if len(entries) != len(records):
        raise SystemExit(f"{papers}: {len(records)} lines, {len(entries)} papers read")
    back = {e.id: str(r["id"]) for e, r in zip(entries, records, strict=True)}
    lib = Library([seeds], work / "data")
    lib.sync()
    return lib, back


def run(folder: Path, work: Path, limit: int | None, seed: int) -> dict:
    papers, queries, qrels = load(folder)
    if limit is not None and limit < len(queries):
        queries = dict(sorted(random.Random(seed).sample(sorted(queries.items()), limit)))
    records = [json.loads(line) for line in papers.read_text(encoding="utf-8").splitlines()
               if line.strip()]
    plain = Baseline(records)
    lib, back = papertray_library(papers, work)
    try:
        for text in list(queries.values())[:10]:  # warm the caches and the vocabulary
            lib.search(text, limit=DEPTH)
        ours, times = {}, []
        for q, text in queries.items():
            start = time.perf_counter()
            hits = lib.search(text, limit=DEPTH).hits
            times.append((time.perf_counter() - start) * 1e3)
            ours[q] = [back.get(h.id, h.id) for h in hits]
    finally:
        lib.close()
    theirs = {q: plain.search(text) for q, text in queries.items()}
    return {"collection": folder.name, "papers": len(records), "queries": len(queries),
            "papertray": scores(ours, qrels), "FTS5 bm25": scores(theirs, qrels),
            "p50 ms": statistics.median(times) if times else 0.0,
            "p95 ms": percentile(times, 0.95)}


#: Words of the generated sample collection's topics: each query names one topic's words.
_TOPICS = [
    ["boundary", "layer", "transition", "laminar", "turbulent"],
    ["shock", "wave", "supersonic", "nozzle", "pressure"],
    ["heat", "transfer", "conduction", "slab", "temperature"],
    ["wing", "lift", "slipstream", "propeller", "span"],
    ["buckling", "cylinder", "shell", "stress", "load"],
]
_FILLER = ["the", "of", "a", "in", "and", "is", "for", "on", "with", "by", "this", "an", "are",
           "results", "study", "method"]


def write_sample(folder: Path, seed: int = 7, per_topic: int = 12) -> Path:
    """A small collection in the benchmark's format: papers on :data:`_TOPICS` among filler
    words, one query per topic, its papers judged by how many of the topic's words they use."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    papers, qrels, queries = [], {}, {}
    for t, words in enumerate(_TOPICS):
        queries[str(t + 1)] = "what is known about " + " ".join(words[:3])
        qrels[str(t + 1)] = {}
        for i in range(per_topic):
            pid = f"{t + 1}-{i + 1}"
            uses = words[:max(1, 5 - i // 3)]
            text = " ".join(rng.choice(uses) if rng.random() < 0.3 else rng.choice(_FILLER)
                            for _ in range(60))
            papers.append({"id": pid, "title": f"{words[0]} {rng.choice(_FILLER)} {words[1]}",
                           "abstract": text + " ."})
            qrels[str(t + 1)][pid] = max(1, 4 - i // 3)
    rng.shuffle(papers)
    (folder / "sample.jsonl").write_text(
        "".join(json.dumps(p) + "\n" for p in papers), encoding="utf-8")
    (folder / "queries.json").write_text(json.dumps(queries), encoding="utf-8")
    (folder / "qrels.json").write_text(json.dumps(qrels), encoding="utf-8")
    return folder


def print_table(out: dict) -> None:
    print(f"\n## {out['collection']}: {out['papers']:,} papers, {out['queries']} judged queries\n")
    print("| search | nDCG@10 | Recall@100 | MRR@10 |")
    print("|---|---:|---:|---:|")
    for name in ("papertray", "FTS5 bm25"):
        f = out[name]
        print(f"| {name} | {f['nDCG@10']:.3f} | {f['Recall@100']:.3f} | {f['MRR@10']:.3f} |")
    print(f"\npapertray search p50 {out['p50 ms']:.1f} ms, p95 {out['p95 ms']:.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("collection", type=Path, nargs="?", help="a collection folder")
    ap.add_argument("--sample", action="store_true", help="generate a small collection")
    ap.add_argument("--queries", type=int, help="judge this many queries, sampled")
    ap.add_argument("--seed", type=int, default=1, help="the sample of --queries")
    ap.add_argument("--keep", type=Path, help="keep the library here and reuse it")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    if (args.collection is None) == (not args.sample):
        ap.error("give a collection folder, or --sample")
    work = args.keep or Path(tempfile.mkdtemp(prefix="relevance-"))
    try:
        folder = write_sample(work / "sample") if args.sample else args.collection
        out = run(folder, work / "library", args.queries, args.seed)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(out))
    else:
        print_table(out)


if __name__ == "__main__":
    main()
