"""How long a saved search's counts take (hits, new, arrived), in process, on a library synced.

    python bench/saved.py SEEDS DATA_DIR [--searches 100] [--words 2] [--seed 1]

It saves ``--searches`` searches of ``--words`` words each, taken from the library's own
abstracts (bench/latency.py's passages: a random place of a random abstract), as
``bench-N``, times the counts of each (:meth:`db.Library.saved_searches` does all of them; here
one at a time, as its p50/p95/max in ms) and the whole list, then removes them again.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from latency import passages, percentile  # noqa: E402

from db import Library  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seeds", type=Path)
    ap.add_argument("data", type=Path, help="the library's data folder (PAPERTRAY_DATA_DIR)")
    ap.add_argument("--searches", type=int, default=100)
    ap.add_argument("--words", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    lib = Library([args.seeds], args.data)
    lib.sync()
    names = []
    try:
        queries = passages(args.data / "index.sqlite", args.words, args.searches, args.seed)
        for n, query in enumerate(queries):
            lib.save_search(f"bench-{n}", query)
            names.append(f"bench-{n}")
        times, totals = [], []
        for name in names:
            start = time.perf_counter()
            counts = lib.saved_search(name)
            times.append((time.perf_counter() - start) * 1e3)
            totals.append(counts.total)
        start = time.perf_counter()
        every = lib.saved_searches()
        whole = (time.perf_counter() - start) * 1e3
        print("| saved searches | hits p50 | p50 ms | p95 ms | max ms | all of them, ms |")
        print("|---:|---:|---:|---:|---:|---:|")
        print(f"| {len(every)} | {statistics.median(totals):.0f} | "
              f"{statistics.median(times):.1f} | {percentile(times, 0.95):.1f} | "
              f"{max(times):.1f} | {whole:.0f} |")
    finally:
        for name in names:
            lib.remove_saved(name)
        lib.close()


if __name__ == "__main__":
    main()
