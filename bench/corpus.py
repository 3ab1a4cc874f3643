"""Seed folders for benchmarks: from a JSON Lines corpus, or generated deterministically.

``python bench/corpus.py OUT --corpus abstracts.jsonl.gz --papers 10000`` writes OUT/*.txt in the
project's seed format (a header line, then one abstract per paragraph), split into ``--files``
files by venue and year. Without ``--corpus`` it generates ``--papers`` synthetic abstracts from the
shipped seeds' vocabulary (same seed, same output), so anyone can run the benchmark.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHIPPED = HERE.parent / "seeds"


def corpus_abstracts(path: Path, limit: int | None) -> Iterator[tuple[str, str]]:
    """``(collection, abstract)`` pairs from a JSON Lines file (gzip by its ending)."""
    opener = gzip.open if path.suffix == ".gz" else open
    count = 0
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if limit is not None and count >= limit:
                return
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            text = " ".join(str(rec.get("abstract") or "").split())
            if len(text) < 40:
                continue
            venue = f"{rec.get('venue') or 'Misc'} {rec.get('year') or ''}".strip()
            count += 1
            yield venue, text


def synthetic_abstracts(n: int, seed: int = 7) -> Iterator[tuple[str, str]]:
    """``n`` deterministic abstracts made of sentences re-mixed from the shipped seeds."""
    rng = random.Random(seed)
    words: list[str] = []
    for f in sorted(SHIPPED.glob("*.txt")):
        body = f.read_text(encoding="utf-8").split("\n", 1)[1]
        words += re.findall(r"[A-Za-z][A-Za-z\-]+", body)
    for i in range(n):
        sentences = []
        for _ in range(rng.randint(5, 9)):
            sent = " ".join(rng.choice(words) for _ in range(rng.randint(12, 28)))
            sentences.append(sent[0].upper() + sent[1:] + ".")
        yield f"SYN {2000 + i % 25}", f"[{i}] " + " ".join(sentences)


def write_seeds(out: Path, pairs: Iterator[tuple[str, str]], files: int) -> int:
    """Write the pairs as ``files`` seed files in ``out``; returns the number of abstracts."""
    out.mkdir(parents=True, exist_ok=True)
    buckets: list[list[str]] = [[] for _ in range(files)]
    headers = [""] * files
    n = 0
    for n, (collection, text) in enumerate(pairs, start=1):
        b = (n - 1) % files
        headers[b] = headers[b] or f"{collection} Papers"
        buckets[b].append(text)
    for i, (header, bucket) in enumerate(zip(headers, buckets, strict=True)):
        if bucket:
            (out / f"part_{i:03d}.txt").write_text(
                header + "\n\n" + "\n\n".join(bucket) + "\n", encoding="utf-8")
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--corpus", type=Path, help="JSON Lines (.gz) with abstracts")
    ap.add_argument("--papers", type=int, default=1000)
    ap.add_argument("--files", type=int, default=50)
    a = ap.parse_args()
    pairs = (corpus_abstracts(a.corpus, a.papers) if a.corpus
             else synthetic_abstracts(a.papers))
    print(write_seeds(a.out, pairs, a.files), "abstracts written to", a.out)


if __name__ == "__main__":
    main()
