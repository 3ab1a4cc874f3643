"""Search latency by query length, in process, on a library already synced.

    python bench/latency.py SEEDS DATA_DIR [--words 4,8,30] [--queries 200] [--seed 1]
                            [--sort relevance]

For each length it takes ``--queries`` runs of that many words from the library's own
abstracts (a random paper, a random place in its abstract: text that reads like a question or a
description of a paper, with its function words) and times ``Library.search`` (first page of 60
hits, in the ``--sort`` order) over each, after 10 warm-up searches. Length 0 is the empty query
(every paper), a page at a random place of the list each time. It prints p50/p95/max in ms per
length.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from db import Library  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))] if values else 0.0


def passages(index: Path, words: int, n: int, seed: int) -> list[str]:
    """``n`` runs of ``words`` words from random abstracts of the index at ``index``."""
    conn = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
    try:
        count = conn.execute("SELECT max(rowid) FROM papers").fetchone()[0] or 0
        rng = random.Random(seed * 1000 + words)
        out: list[str] = []
        while count and len(out) < n:
            row = conn.execute("SELECT coalesce(body, abstract) FROM papers WHERE rowid = ?",
                               (rng.randint(1, count),)).fetchone()
            text = (row[0] or "").split() if row else []
            if len(text) >= words:
                start = rng.randint(0, len(text) - words)
                out.append(" ".join(text[start:start + words]))
        return out
    finally:
        conn.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seeds", type=Path)
    ap.add_argument("data", type=Path, help="the library's data folder (PAPERTRAY_DATA_DIR)")
    ap.add_argument("--words", default="4,8,30", help="comma-separated query lengths")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sort", default="relevance", help="the order (db.models.SORTS)")
    args = ap.parse_args()
    lib = Library([args.seeds], args.data)
    lib.sync()
    try:
        print("| words | queries | p50 ms | p95 ms | max ms |")
        print("|---:|---:|---:|---:|---:|")
        papers = lib.search("", limit=0).total
        rng = random.Random(args.seed)
        for words in (int(w) for w in args.words.split(",")):
            queries = (passages(args.data / "index.sqlite", words, args.queries, args.seed)
                       if words else [""] * args.queries)
            offsets = [rng.randrange(max(1, papers - 60)) if not words else 0 for _ in queries]
            for text in queries[:10]:
                lib.search(text, limit=60, sort=args.sort)
            times = []
            for text, offset in zip(queries, offsets, strict=True):
                start = time.perf_counter()
                lib.search(text, limit=60, offset=offset, sort=args.sort)
                times.append((time.perf_counter() - start) * 1e3)
            print(f"| {words} | {len(times)} | {statistics.median(times):.1f} | "
                  f"{percentile(times, 0.95):.1f} | {max(times):.1f} |")
    finally:
        lib.close()


if __name__ == "__main__":
    main()
