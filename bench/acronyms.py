"""Acronyms and their long forms: what each finds alone, and what the search finds now.

    python bench/acronyms.py SEEDS DATA_DIR [--pairs 30]

Syncs a papertray library of the seed folder SEEDS (index and marks in DATA_DIR), takes the
``--pairs`` pairs of ``acronyms`` (mined at sync time, db/index/acronyms.py) that the most
papers define, and prints for each, and in total over all pairs, the papers found by the short
form alone (``"RLHF"``: quoted, so not expanded) and by the long form alone (its words, each
quoted: ``"reinforcement" "learning" …``), their union, and the share of the union that the
short form and the long form typed as words find before (expansion off) and after (the plain
query). It ends with the latency of the plain queries against the quoted ones.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from db import Library  # noqa: E402


def found(lib: Library, query: str) -> set[str]:
    """The ids of every paper ``query`` finds (pages of 10,000, the most a search gives)."""
    ids: set[str] = set()
    while True:
        page = lib.search(query, limit=PAGE, offset=len(ids)).hits
        ids.update(h.id for h in page)
        if len(page) < PAGE:
            return ids


PAGE = 10_000


def latency(lib: Library, queries: list[str], repeat: int = 5) -> list[float]:
    """Milliseconds of a first page (60 hits) of each query, the best of ``repeat`` runs."""
    out = []
    for q in queries:
        runs = []
        for _ in range(repeat):
            started = time.perf_counter()
            lib.search(q, limit=60)
            runs.append((time.perf_counter() - started) * 1000)
        out.append(min(runs))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seeds", type=Path)
    ap.add_argument("data", type=Path)
    ap.add_argument("--pairs", type=int, default=30)
    args = ap.parse_args(argv)
    with Library([args.seeds], args.data) as lib:
        lib.sync()
        index = sqlite3.connect(args.data / "index.sqlite")
        pairs = index.execute("SELECT short, long, papers FROM acronyms "
                              "ORDER BY papers DESC, short LIMIT ?", (args.pairs,)).fetchall()
        index.close()
        print(f"## {len(pairs)} most defined acronyms\n")
        print("| short | long form | defined in | short alone | long alone | both | union "
              "| short: before → after | long: before → after |")
        print("|---|---|--:|--:|--:|--:|--:|--:|--:|")
        sums = [0] * 8
        plain, quoted = [], []
        for short, long, papers in pairs:
            short_alone = found(lib, f'"{short}"')
            long_alone = found(lib, " ".join(f'"{w}"' for w in long.split()))
            union = short_alone | long_alone
            short_now, long_now = found(lib, short), found(lib, long)
            counts = [len(short_alone), len(long_alone), len(short_alone & long_alone),
                      len(union), len(short_alone & union), len(short_now & union),
                      len(long_alone & union), len(long_now & union)]
            sums = [a + b for a, b in zip(sums, counts, strict=True)]
            print(f"| {short} | {long} | {papers} | " + " | ".join(map(str, counts[:4]))
                  + f" | {_share(counts[4], counts[3])} → {_share(counts[5], counts[3])} "
                  f"| {_share(counts[6], counts[3])} → {_share(counts[7], counts[3])} |")
            plain += [short, long]
            quoted += [f'"{short}"', " ".join(f'"{w}"' for w in long.split())]
        print(f"| **all** | | | {sums[0]} | {sums[1]} | {sums[2]} | {sums[3]} "
              f"| {_share(sums[4], sums[3])} → {_share(sums[5], sums[3])} "
              f"| {_share(sums[6], sums[3])} → {_share(sums[7], sums[3])} |")
        if pairs:
            before, after = latency(lib, quoted), latency(lib, plain)
            print(f"\nsearch latency (first page, ms, best of 5): p50 "
                  f"{statistics.median(before):.1f} → {statistics.median(after):.1f}, max "
                  f"{max(before):.1f} → {max(after):.1f} (quoted → plain, {len(plain)} queries)")
    return 0


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "-"


if __name__ == "__main__":
    raise SystemExit(main())
