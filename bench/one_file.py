"""A first build from one big seed file against the same papers in many files.

    python bench/one_file.py CORPUS.jsonl.gz --papers 87409 --repeat 3
    python bench/one_file.py --papers 2000      # synthetic abstracts from the shipped seeds

It writes the corpus's first ``--papers`` records three ways: as one ``.jsonl.gz`` file, as
``--files`` ``.jsonl.gz`` files (the same records, dealt in turn), and as ``--files`` text seed
files (``bench/corpus.py``); then times ``papertray sync`` into an empty data folder for each
(whole processes, wall seconds, median of ``--repeat`` runs, the layouts taken in turn so that
each sees the same machine load) and prints one table with the ratio
of each to the text files. With ``--browser`` it times the browser too: started on the empty data
folder in a pty (``bench/browser.py``), until the built index's first page of hits is shown.
docs/benchmark.md has the figures.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import browser  # noqa: E402
import corpus  # noqa: E402
from run import PAPERTRAY, timed  # noqa: E402

BROWSER = [sys.executable, str(HERE / "browser.py"), "--child", "ours", "page"]


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


def write_layouts(work: Path, recs: list[dict], files: int,
                  names: tuple[str, ...] = ("one", "many", "text")) -> dict[str, Path]:
    """The seed folders of the layouts ``names``: ``{label: folder}``; a folder ``work`` has
    already (``--keep`` of an earlier run) is kept as it is. ``bare`` and ``onetext`` hold the
    abstracts alone, as the text files do: one ``.jsonl.gz`` of ``{"abstract"}`` records and
    one ``.txt`` file."""
    layouts = {"one .jsonl.gz": work / "one", f"{files} .jsonl.gz": work / "many",
               f"{files} .txt": work / "text", "one .jsonl.gz, abstracts only": work / "bare",
               "one .txt": work / "onetext"}
    pairs = [(f"{r.get('venue') or 'Misc'} {r.get('year') or ''}".strip(),
              " ".join(str(r.get("abstract") or "").split())) for r in recs]
    writers = {
        "one": lambda d: write_jsonl(d / "papers.jsonl.gz", recs),
        "many": lambda d: [write_jsonl(d / f"part_{i:03d}.jsonl.gz", recs[i::files])
                           for i in range(files)],
        "text": lambda d: corpus.write_seeds(d, iter(pairs), files),
        "bare": lambda d: write_jsonl(d / "papers.jsonl.gz",
                                      [{"abstract": text} for _, text in pairs]),
        "onetext": lambda d: corpus.write_seeds(d, iter(pairs), 1),
    }
    layouts = {label: folder for label, folder in layouts.items() if folder.name in names}
    for folder in layouts.values():
        if not folder.is_dir():
            folder.mkdir(parents=True)
            writers[folder.name](folder)
    return layouts


def print_table(figures: dict[str, list[float]], base: str, papers: int, repeat: int) -> None:
    """One row per layout: ``sync`` (and the browser's) seconds, and the ratio to ``base``."""
    print(f"## first build of {papers} abstracts (median of {repeat})\n")
    heads = ["sync (s)", "÷ base", "browser (s)", "÷ base"][:2 * len(figures[base])]
    print(f"| seed files | {' | '.join(heads)} |")
    print("|---|" + "---:|" * len(heads))
    for label, seconds in figures.items():
        cells = [f"{s:.2f} | {s / b:.2f}" for s, b in zip(seconds, figures[base], strict=True)]
        print(f"| {label} | {' | '.join(cells)} |")
    print(f"\n(÷ base: the ratio to {base})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path, nargs="?", help="JSON Lines (.gz) with abstracts")
    ap.add_argument("--papers", type=int, default=2000)
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", type=Path, help="write the seed folders here and keep them")
    ap.add_argument("--browser", action="store_true", help="time the browser's first build too")
    ap.add_argument("--layouts", default="one,many,text",
                    help="which to time: one (.jsonl.gz), many (.jsonl.gz), text (the base), "
                         "bare (one .jsonl.gz of the abstracts alone), onetext (one .txt)")
    a = ap.parse_args()
    work = a.keep or Path(tempfile.mkdtemp(prefix="papertray-bench-"))
    try:
        recs = records(a.corpus, a.papers)
        layouts = write_layouts(work / "seeds", recs, a.files, tuple(a.layouts.split(",")))
        data = work / "data"

        def fresh() -> None:
            shutil.rmtree(data, ignore_errors=True)

        browser.DEADLINE_S = 900  # a first build of 87k abstracts, on a busy machine
        runs: dict[str, list[list[float]]] = {label: [[], []] for label in layouts}
        log = work / "shown.jsonl"
        for _ in range(a.repeat):  # interleaved: every layout sees the same machine load
            for label, folder in layouts.items():
                runs[label][0].append(timed([*PAPERTRAY, "--seeds", str(folder), "--data-dir",
                                             str(data), "sync"], 1, before=fresh)[0])
                if a.browser:
                    fresh()
                    runs[label][1].append(browser.session(
                        [*BROWSER, str(log), str(folder), str(data)], log)[0])
        figures = {label: [statistics.median(walls) for walls in both if walls]
                   for label, both in runs.items()}
        print_table(figures, f"{a.files} .txt", len(recs), a.repeat)
    finally:
        if a.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
