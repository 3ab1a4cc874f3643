"""Known-item search benchmark: find one paper by its title over an index of abstracts only.

    python bench/recall.py --corpus abstracts.jsonl.gz --sizes 10000,87409 --queries 500 --seed 2
    python bench/recall.py --sizes 300 --queries 40     # synthetic titled abstracts, for CI

For each size it samples that many papers of the corpus (``--seed``), writes their abstracts only
as seed files (``bench/corpus.py``: titles stripped, as in the shipped seeds), syncs a papertray
library, and asks for ``--queries`` of the sampled papers by their real title, once as written and
once with one typo in every word of 6 or more letters (a dropped, swapped or replaced letter,
fixed by the seed). It prints recall@1/@3/@10 (the share of queries whose paper is among the first
k hits) and p50/p95 latency in ms for ``Library.search`` next to two plain FTS5 baselines over
the same abstracts in the same run (``bench/baseline.py``): every title word required (AND), and
any title word, bm25-ranked (OR).

Held out: the ranking was tuned with ``--seed 1``; report figures with another seed (default 2).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import baseline  # noqa: E402
import corpus  # noqa: E402

from db import Library  # noqa: E402
from db.search.stopwords import STOP_WORDS  # noqa: E402
from db.seeds.read import parse_file  # noqa: E402
from db.text import paper_id  # noqa: E402

_WORD_RE = re.compile(r"[^\W_]+")
TYPO_MIN_LETTERS = 6  # words at least this long get one typo in the "typos" condition


def load_corpus(path: Path) -> list[tuple[str, str]]:
    """``(title, abstract)`` pairs of a JSON Lines file (gzip by its ending), whitespace folded;
    records without a title or with an abstract under 40 characters are skipped."""
    opener = gzip.open if path.suffix == ".gz" else open
    out = []
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            title = " ".join(str(rec.get("title") or "").split())
            abstract = " ".join(str(rec.get("abstract") or "").split())
            if title and len(abstract) >= 40:
                out.append((title, abstract))
    return out


def synthetic_corpus(n: int, seed: int) -> list[tuple[str, str]]:
    """``n`` synthetic abstracts (bench/corpus.py), each titled by 6-10 of its own words in a
    row, stop-words left out (a title's words carry its topic)."""
    rng = random.Random(seed)
    out = []
    for _, abstract in corpus.synthetic_abstracts(n, seed):
        words = [w for w in _WORD_RE.findall(abstract)[1:] if w.lower() not in STOP_WORDS]
        k = rng.randint(6, 10)
        start = rng.randrange(max(1, len(words) - k))
        out.append((" ".join(words[start:start + k]), abstract))
    return out


def with_typos(title: str, rng: random.Random) -> str:
    """``title`` with one typo (drop, swap or replace a letter) in every word of 6+ letters."""

    def damage(m: re.Match[str]) -> str:
        word = m.group()
        if len(word) < TYPO_MIN_LETTERS or not word.isalpha():
            return word
        i = rng.randrange(1, len(word) - 1)
        kind = rng.choice(("drop", "swap", "replace"))
        if kind == "drop":
            return word[:i] + word[i + 1:]
        if kind == "swap" and word[i] != word[i + 1]:
            return word[:i] + word[i + 1] + word[i] + word[i + 2:]
        letters = [c for c in "abcdefghijklmnopqrstuvwxyz" if c != word[i].lower()]
        return word[:i] + rng.choice(letters) + word[i + 1:]

    return _WORD_RE.sub(damage, title)


def plain_words(text: str) -> list[str]:
    """The words of ``text`` as FTS5's unicode61 sees them (NFKC, case-folded)."""
    return _WORD_RE.findall(unicodedata.normalize("NFKC", text).casefold())


def plain_search(conn: sqlite3.Connection, words: list[str], mode: str) -> list[int]:
    """Plain FTS5: every word quoted, joined with AND or OR, best 10 by bm25."""
    if not words:
        return []
    expr = f" {mode} ".join('"' + w.replace('"', '""') + '"' for w in words)
    return [r[0] for r in conn.execute(
        "SELECT rowid FROM docs_fts WHERE docs_fts MATCH ? ORDER BY rank LIMIT 10", (expr,))]


def library_ids(seeds: Path) -> dict[str, str]:
    """``{abstract as baseline.read_abstracts gives it: the paper id papertray gave it}``.

    The id is not always ``paper_id`` of the corpus text: the loader first drops control
    characters (mis-decoded bytes such as U+0080), as any seed text gets them dropped.
    """
    out: dict[str, str] = {}
    for f in sorted(seeds.rglob("*.txt")):
        written = baseline.read_abstracts_of(f)
        _, entries = parse_file(f, f.read_bytes())
        if len(entries) == len(written):
            out.update(zip(written, (e.id for e in entries), strict=True))
    return out


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))] if values else 0.0


def evaluate(run, queries: list[tuple[str, str]]) -> dict[str, float]:
    """recall@1/@3/@10 and p50/p95 ms of ``run(query) -> ranked ids`` over ``(query, id)``."""
    ranks, times = [], []
    for query, target in queries:
        t = time.perf_counter()
        found = run(query)
        times.append((time.perf_counter() - t) * 1e3)
        ranks.append(found.index(target) + 1 if target in found else None)
    n = len(queries) or 1
    out = {f"@{k}": sum(1 for r in ranks if r and r <= k) / n for k in (1, 3, 10)}
    out |= {"p50": statistics.median(times) if times else 0.0, "p95": percentile(times, .95)}
    return out


def run_size(records: list[tuple[str, str]], n: int, args: argparse.Namespace,
             work: Path) -> list[tuple[str, str, dict[str, float]]]:
    rng = random.Random(args.seed)
    sample = rng.sample(records, min(n, len(records)))
    seeds, data, plain_db = work / f"seeds{n}", work / f"data{n}", work / f"plain{n}.db"
    done = work / f"seeds{n}.done"  # a kept folder's seeds, library and baseline are complete
    if not done.exists():
        shutil.rmtree(seeds, ignore_errors=True)
        plain_db.unlink(missing_ok=True)
        corpus.write_seeds(seeds, ((f"Sample {i % 50}", a) for i, (_, a) in enumerate(sample)),
                           args.files)
    lib = Library([seeds], data)
    lib.sync()  # unchanged seeds of a kept folder: the index is reused as it is
    if not done.exists():
        baseline.build(seeds, plain_db)
        done.touch()
    conn = sqlite3.connect(plain_db)
    ids = library_ids(seeds)
    row_ids = {i: ids.get(a) or paper_id(a)
               for i, a in enumerate(baseline.read_abstracts(seeds), start=1)}
    # a title shared by two sampled papers cannot name one of them
    titles = Counter(t.casefold() for t, _ in sample)
    unique = [(t, a) for t, a in sample if titles[t.casefold()] == 1]
    picked = rng.sample(unique, min(args.queries, len(unique)))
    typo_rng = random.Random(args.seed * 1000 + n)
    target = {a: ids.get(" ".join(a.split())) or paper_id(a) for _, a in picked}
    conditions = {"clean": [(t, target[a]) for t, a in picked],
                  "typos": [(with_typos(t, typo_rng), target[a]) for t, a in picked]}
    methods = {
        "papertray": lambda q: [h.id for h in lib.search(q, limit=10).hits],
        "FTS5 AND": lambda q: [row_ids[r] for r in plain_search(conn, plain_words(q), "AND")],
        "FTS5 OR (bm25)": lambda q: [row_ids[r] for r in plain_search(conn, plain_words(q),
                                                                      "OR")],
    }
    for q, _ in conditions["clean"][:10] + conditions["typos"][:10]:  # warm caches, vocabulary
        for run in methods.values():
            run(q)
    rows = [(cond, name, evaluate(run, queries))
            for cond, queries in conditions.items() for name, run in methods.items()]
    lib.close()
    conn.close()
    return rows


def print_table(n: int, queries: int, rows) -> None:
    print(f"\n## {n:,} abstracts, {queries} title queries\n")
    print("| titles | search | recall@1 | recall@3 | recall@10 | p50 ms | p95 ms |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for cond, name, f in rows:
        print(f"| {cond} | {name} | {f['@1']:.3f} | {f['@3']:.3f} | {f['@10']:.3f} | "
              f"{f['p50']:.1f} | {f['p95']:.1f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, help="JSON Lines (.gz) with title and abstract; "
                    "else synthetic abstracts titled by their own words")
    ap.add_argument("--sizes", default="300", help="comma-separated numbers of abstracts")
    ap.add_argument("--queries", type=int, default=200, help="title queries per size")
    ap.add_argument("--seed", type=int, default=2, help="sampling seed (tuning used 1)")
    ap.add_argument("--files", type=int, default=50, help="seed files per library")
    ap.add_argument("--keep", type=Path, help="work in this folder and keep it; a later run "
                    "with the same folder reuses its libraries (about a minute each at 87k)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    records = (load_corpus(args.corpus) if args.corpus
               else synthetic_corpus(max(sizes), args.seed))
    work = args.keep or Path(tempfile.mkdtemp(prefix="papertray-recall-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        print(f"papertray recall benchmark — sqlite {sqlite3.sqlite_version}, seed {args.seed}, "
              f"{len(records):,} titled abstracts in the corpus")
        for n in sizes:
            # the whole corpus is the same library whatever the seed; a sample is the seed's own
            folder = "all" if n >= len(records) else f"{n}-seed{args.seed}"
            print_table(n, args.queries, run_size(records, n, args, work / folder))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
