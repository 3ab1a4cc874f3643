"""The fuzzers, for as long as asked: the browser, the command line and the query language.

    python scripts/fuzz.py --minutes 10 [--only browser|cli|query] [--seed N]
    python scripts/fuzz.py --only query --corpus abstracts.jsonl.gz --papers 87409 --minutes 5

Runs the fuzz tests' checks (``tests/fuzz_support.py``, ``tests/fuzz_browser_support.py``)
with Hypothesis, in rounds of new random examples (each round's seed is printed, so ``--seed``
replays it), until the time is up or a check fails. A failure prints the failing input, shrunk
(a browser program, a command line, a query), and exits 1. The query fuzzer runs on the shipped
seeds, or with ``--corpus`` on a library of ``--papers`` abstracts built by ``bench/corpus.py``
(kept in ``--work`` if given, to run again without building it); it prints the slowest queries.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import corpus  # noqa: E402
from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from hypothesis.errors import FlakyFailure  # noqa: E402

from db import Library  # noqa: E402
from tests import fuzz_support as fuzz  # noqa: E402
from tests.fuzz_browser_support import check_program, programs  # noqa: E402

#: Examples per round, by fuzzer (a round is one Hypothesis run with one seed).
ROUND = {"browser": 5, "cli": 100, "query": 300}


def _settings(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


def _library(args: argparse.Namespace, work: Path) -> Library:
    """The query fuzzer's library: the shipped seeds, or ``--papers`` of ``--corpus``."""
    if args.corpus is None:
        seeds = fuzz.ROOT / "seeds"
    else:
        seeds = work / "seeds"
        if not seeds.exists():
            count = corpus.write_seeds(seeds, corpus.corpus_abstracts(args.corpus, args.papers),
                                       50)
            print(f"wrote {count} abstracts to {seeds}", flush=True)
    library = Library([seeds], work / "data")
    start = time.perf_counter()
    report = library.sync()
    print(f"synced in {time.perf_counter() - start:.1f} s: {library.counts()['all']} papers "
          f"({'built' if report.did_change else 'up to date'})", flush=True)
    return library


def _round(kind: str, n: int, context: dict) -> None:
    """One round of ``kind`` with seed ``n``, counting examples in ``context["ran"]`` (raises
    on a failure)."""
    runs = context["ran"]
    if kind == "browser":
        @given(programs())
        def check(program):
            runs[kind] += 1
            check_program(program)
    elif kind == "cli":
        @given(fuzz.command_lines())
        def check(argv):
            runs[kind] += 1
            fuzz.check_cli(context["where"], argv)
    else:
        @given(fuzz.searches())
        def check(search):
            runs[kind] += 1
            took = fuzz.check_query(context["library"], search)
            context["times"].append((took, search))
            context["times"].sort(key=lambda pair: -pair[0])
            del context["times"][10:]
    seed(n)(_settings(ROUND[kind])(check))()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--only", choices=sorted(ROUND), action="append",
                    help="run only this fuzzer (repeatable); default: all three in turn")
    ap.add_argument("--seed", type=int, help="the first round's seed (default: random)")
    ap.add_argument("--corpus", type=Path, help="JSON Lines (.gz) of abstracts for the query "
                                                "fuzzer's library")
    ap.add_argument("--papers", type=int, default=87409)
    ap.add_argument("--work", type=Path, help="keep the corpus library here")
    args = ap.parse_args()
    kinds = args.only or sorted(ROUND)
    rng = random.Random(args.seed)
    end = time.monotonic() + 60 * args.minutes
    with tempfile.TemporaryDirectory(prefix="papertray-fuzz-") as tmp:
        work = args.work or Path(tmp)
        os.chdir(tmp)  # files a command line writes (export -o out.md) land here
        where = ["--seeds", str(fuzz.ROOT / "seeds"), "--data-dir", str(Path(tmp) / "cli-data")]
        context: dict = {"times": [], "ran": dict.fromkeys(kinds, 0), "where": where}
        if "query" in kinds:
            context["library"] = _library(args, work)
        status, turn = 0, 0
        while time.monotonic() < end:
            kind = kinds[turn % len(kinds)]
            n = args.seed if args.seed is not None and turn == 0 else rng.getrandbits(32)
            turn += 1
            print(f"{kind}: round with --seed {n}", flush=True)
            try:
                _round(kind, n, context)
            except FlakyFailure as exc:  # a query slow once, not again: the machine's load
                print(f"not repeatable ({kind}, --seed {n}), going on: {exc}", flush=True)
            except Exception as exc:  # Hypothesis notes the failing input, shrunk, on the error
                traceback.print_exception(exc)
                print(f"FAILED ({kind}, --seed {n}): {type(exc).__name__}: {exc}", flush=True)
                status = 1
                break
        if context.get("library") is not None:
            context["library"].close()
    print("examples run: " + ", ".join(f"{k} {n}" for k, n in context["ran"].items()))
    for took, search in context["times"]:
        print(f"  {took * 1000:8.1f} ms  {search}")
    return status


if __name__ == "__main__":
    sys.exit(main())
