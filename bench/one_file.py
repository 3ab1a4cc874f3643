"""A first build from one big seed file against the same papers in many files.

    python bench/one_file.py CORPUS.jsonl.gz --papers 87409 --repeat 3
    python bench/one_file.py --papers 2000      # synthetic abstracts from the shipped seeds

It writes the corpus's first ``--papers`` records three ways: as one ``.jsonl.gz`` file, as
``--files`` ``.jsonl.gz`` files (the same records, dealt in turn), and as ``--files`` text seed
files (``bench/corpus.py``); then times ``papertray sync`` into an empty data folder for each
(whole processes, wall seconds, median of ``--repeat`` runs) and prints one table with the ratio
of one file to many. docs/benchmark.md has the figures.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import corpus  # noqa: E402
from run import PAPERTRAY, timed  # noqa: E402


def records(path: Path | None, papers: int) -> list[dict]:
    """The first ``papers`` records of a JSON Lines corpus (gzip by its ending) with an
    abstract, or as many synthetic ones (``{venue, year, abstract}``)."""
    if path is None:
        return [{"venue": venue.split()[0], "year": int(venue.split()[1]), "abstract": text}
                for venue, text in corpus.synthetic_abstracts(papers)]
    opener = gzip.open if path.suffix == ".gz" else open
    found = []
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if len(found) >= papers:
                break
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if len(" ".join(str(rec.get("abstract") or "").split())) >= 40:
                found.append(rec)
    return found


def write_jsonl(path: Path, recs: list[dict]) -> None:
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=6) as fh:
        for rec in recs:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


def write_layouts(work: Path, recs: list[dict], files: int) -> dict[str, Path]:
    """The three seed folders: ``{label: folder}``."""
    one, many, text = work / "one", work / "many", work / "text"
    for d in (one, many, text):
        d.mkdir(parents=True)
    write_jsonl(one / "papers.jsonl.gz", recs)
    for i in range(files):
        write_jsonl(many / f"part_{i:03d}.jsonl.gz", recs[i::files])
    pairs = ((f"{r.get('venue') or 'Misc'} {r.get('year') or ''}".strip(),
              " ".join(str(r.get("abstract") or "").split())) for r in recs)
    corpus.write_seeds(text, pairs, files)
    return {"one .jsonl.gz": one, f"{files} .jsonl.gz": many, f"{files} .txt": text}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path, nargs="?", help="JSON Lines (.gz) with abstracts")
    ap.add_argument("--papers", type=int, default=2000)
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", type=Path, help="write the seed folders here and keep them")
    a = ap.parse_args()
    work = a.keep or Path(tempfile.mkdtemp(prefix="papertray-bench-"))
    try:
        recs = records(a.corpus, a.papers)
        layouts = write_layouts(work / "seeds", recs, a.files)
        data = work / "data"

        def fresh() -> None:
            shutil.rmtree(data, ignore_errors=True)

        figures = {label: timed([*PAPERTRAY, "--seeds", str(folder), "--data-dir", str(data),
                                 "sync"], a.repeat, before=fresh)[0]
                   for label, folder in layouts.items()}
        base = figures[f"{a.files} .jsonl.gz"]
        print(f"## first build of {len(recs)} abstracts (median of {a.repeat})\n")
        print("| seed files | sync (s) | ÷ many .jsonl.gz |")
        print("|---|---:|---:|")
        for label, seconds in figures.items():
            print(f"| {label} | {seconds:.2f} | {seconds / base:.2f} |")
    finally:
        if a.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
