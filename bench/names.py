"""Derived names on a real corpus: how many papers get one, how many share it, LaTeX in them.

    python bench/names.py CORPUS.jsonl.gz --sizes 10000,30000 [--build] [--top 15]

For each size it writes the corpus's first N abstracts as text seed files (a header line, then
one abstract per paragraph: ``bench/corpus.py``), parses them as a sync does
(:func:`db.seeds.read.parse_file`: one paper per distinct abstract) and prints:

* **derived**: papers whose abstract gives a name (:func:`db.seeds.derive.method_name`), the
  share of those whose name (case-folded) another paper derives too, the names that look like
  LaTeX (a backslash, or a command word such as ``textit`` or ``mathbf`` in them), and the most
  shared names;
* with ``--build``: a library built from the same files (``db.Library`` in a temporary data
  folder, a first build, wall seconds) and the names it shows (``papers.name``): the same
  figures, with the library's rule (a name several papers share is no name:
  :mod:`db.index.names`) switched off, then on (0% shared), and the milliseconds the rule took.

docs/benchmark.md has the figures.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import corpus  # noqa: E402

_LATEX_RE = re.compile(r"\\|textit|textbf|textrm|texttt|emph|mathbf|mathrm|mathcal|mathbb|"
                       r"mathit|mathsf|operatorname", re.IGNORECASE)


def figures(names: list[str | None]) -> dict:
    """``{papers, named, shared, shared_pct, latex, top}`` of one name (or None) per paper."""
    named = [n for n in names if n]
    counts = Counter(n.casefold() for n in named)
    shared = sum(1 for n in named if counts[n.casefold()] > 1)
    return {"papers": len(names), "named": len(named), "shared": shared,
            "shared_pct": 100 * shared / len(named) if named else 0.0,
            "latex": sorted({n for n in named if _LATEX_RE.search(n)}),
            "top": [(n, c) for n, c in counts.most_common() if c > 1]}


def derived_names(seeds: Path) -> tuple[list[str | None], float]:
    """One derived name (or None) per distinct paper of the seed files, and the seconds taken."""
    from db.seeds.read import parse_file

    started = time.perf_counter()
    by_id: dict[str, str | None] = {}
    for f in sorted(seeds.glob("*.txt")):
        for e in parse_file(f, f.read_bytes())[1]:
            by_id.setdefault(e.id, e.name)
    return list(by_id.values()), time.perf_counter() - started


def shown_names(seeds: Path, data: Path, rule: bool = True
                ) -> tuple[list[str | None], float, float]:
    """The names a library built from ``seeds`` shows (``papers.name``), its first build's
    wall seconds, and the seconds of those spent on the rule (``rule=False``: switched off)."""
    from db import Library
    from db.index import names as names_rule

    spent = [0.0]
    hide = names_rule.hide_shared_names

    def timed_rule(conn):
        started = time.perf_counter()
        try:
            return hide(conn) if rule else 0
        finally:
            spent[0] += time.perf_counter() - started

    names_rule.hide_shared_names = timed_rule
    try:
        with Library([seeds], data_dir=data) as lib:
            started = time.perf_counter()
            lib.sync()
            seconds = time.perf_counter() - started
            conn = lib._index()  # (a benchmark reads the table directly)
            shown = [r[0] for r in conn.execute("SELECT name FROM papers WHERE title IS NULL")]
    finally:
        names_rule.hide_shared_names = hide
    return shown, seconds, spent[0]


def report(label: str, f: dict, top: int, seconds: float) -> None:
    print(f"  {label}: {f['named']:,} of {f['papers']:,} papers named, "
          f"{f['shared']:,} share their name ({f['shared_pct']:.1f}%), "
          f"{len(f['latex'])} LaTeX-looking; {seconds:.2f} s")
    if f["latex"]:
        print("    LaTeX:", ", ".join(f["latex"][:10]))
    if f["top"][:top]:
        print("    most shared:", ", ".join(f"{n} {c}" for n, c in f["top"][:top]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path, help="JSON Lines (.gz) with abstracts")
    ap.add_argument("--sizes", default="10000,30000")
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--build", action="store_true", help="build a library too (the shown names)")
    a = ap.parse_args()
    for n in (int(s) for s in a.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            seeds = Path(tmp) / "seeds"
            written = corpus.write_seeds(seeds, corpus.corpus_abstracts(a.corpus, n), a.files)
            print(f"{written:,} abstracts:")
            names, seconds = derived_names(seeds)
            report("derived", figures(names), a.top, seconds)
            if a.build:
                for rule in (False, True):
                    shown, seconds, spent = shown_names(seeds, Path(tmp) / f"data-{rule}", rule)
                    report("shown, rule " + ("on " if rule else "off"), figures(shown), a.top,
                           seconds)
                    if rule:
                        print(f"    the rule: {spent * 1000:.1f} ms of the build")


if __name__ == "__main__":
    main()
