"""Catalogue benchmark: a catalogue of titles matched to a library's abstracts, and what it costs.

    python bench/catalogue.py CATALOGUE.jsonl --corpus abstracts.jsonl.gz [--no-years]
    python bench/catalogue.py tests/data/catalogue/icml_catalogue_sample.jsonl --papers 300

The library is the shipped seeds plus the corpus's abstracts (``--papers`` of them, all by
default; synthetic ones without ``--corpus``) as text seeds, one file per collection headed by
it ("ECCV 2022 Papers"), or all headed "Conference abstracts" with ``--no-years`` (a collection
that names no year: every abstract is then a candidate of the catalogue). It times a cold sync
of the library alone, the sync that adds the catalogue, an unchanged sync, and a sync after one
abstract is edited (which matches the catalogue again), and counts the titles matched,
ambiguous and unmatched, the shipped abstracts that got a title, and the other abstracts that
got one (with a catalogue of papers the corpus does not have, as ICML 2025's beside the 87k
corpus, each of those is a wrong title).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import corpus  # noqa: E402

from db import Library  # noqa: E402
from db.seeds.read import parse_file  # noqa: E402


def write_library(out: Path, pairs, no_years: bool) -> int:
    """The shipped seeds and ``pairs`` (``(collection, abstract)``) as text seeds in ``out``,
    one file per collection; returns the number of abstracts written from ``pairs``."""
    out.mkdir(parents=True)
    for f in sorted(corpus.SHIPPED.glob("*.txt")):
        shutil.copy(f, out / f.name)
    groups: dict[str, list[str]] = defaultdict(list)
    for collection, text in pairs:
        groups["Conference abstracts" if no_years else collection].append(text)
    for n, (collection, texts) in enumerate(sorted(groups.items())):
        (out / f"part_{n:03d}.txt").write_text(
            f"{collection} Papers\n\n" + "\n\n".join(texts) + "\n", encoding="utf-8")
    return sum(len(t) for t in groups.values())


def timed(lib: Library):
    started = time.perf_counter()
    report = lib.sync()
    return time.perf_counter() - started, report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("catalogue", type=Path, help="a JSON Lines catalogue: titles, no abstracts")
    ap.add_argument("--corpus", type=Path, help="JSON Lines (.gz) with abstracts")
    ap.add_argument("--papers", type=int, help="abstracts of the corpus (default: all)")
    ap.add_argument("--no-years", action="store_true", help="one header naming no year")
    ap.add_argument("--keep", type=Path, help="work here and keep it (default: a temp folder)")
    a = ap.parse_args()
    work = a.keep or Path(tempfile.mkdtemp(prefix="papertray-catalogue-"))
    pairs = (corpus.corpus_abstracts(a.corpus, a.papers) if a.corpus
             else corpus.synthetic_abstracts(a.papers or 300))
    seeds = work / "seeds"
    extra = write_library(seeds, pairs, a.no_years)
    with Library([seeds], work / "data") as lib:
        alone, first = timed(lib)
        shipped = {e.id for f in corpus.SHIPPED.glob("*.txt")
                   for e in parse_file(f, f.read_bytes())[1]}
        shutil.copy(a.catalogue, seeds / a.catalogue.name)
        added, report = timed(lib)
        unchanged, _ = timed(lib)
        part = min(seeds.glob("part_*.txt"), default=None) or min(seeds.glob("0*.txt"))
        text = part.read_text(encoding="utf-8")
        part.write_text(text.replace("\n\n", "\n\nEdited. ", 1), encoding="utf-8")
        edited, again = timed(lib)
        titled = {pid for (pid,) in lib._index().execute(
            "SELECT id FROM papers WHERE title IS NOT NULL AND abstract != ''")}
    print(f"## {first.papers} abstracts ({extra} of the corpus, "
          f"{'one header naming no year' if a.no_years else 'one file per collection'}) "
          f"+ {a.catalogue.name}\n")
    print("| figure | value |\n| --- | --: |")
    rows = [("sync of the library alone, cold (s)", f"{alone:.2f}"),
            ("sync adding the catalogue (s)", f"{added:.2f}"),
            ("unchanged sync (s)", f"{unchanged:.3f}"),
            ("one abstract edited → sync, matched again (s)", f"{edited:.2f}"),
            ("titles matched / ambiguous / unmatched",
             f"{report.matched} / {report.ambiguous} / {report.unmatched}"),
            ("shipped abstracts titled", f"{len(titled & shipped)} of {len(shipped)}"),
            ("other abstracts titled", str(len(titled - shipped))),
            ("after the edit: matched / ambiguous / unmatched",
             f"{again.matched} / {again.ambiguous} / {again.unmatched}")]
    for name, value in rows:
        print(f"| {name} | {value} |")
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
