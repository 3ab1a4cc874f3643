"""Rendering time: every abstract of a corpus rendered for display, as the panel and exports do.

    python bench/render.py CORPUS [--papers 10000] [--repeat 3]

Reads the first ``--papers`` abstracts of a JSON Lines corpus (gzip by its ending; the
``abstract`` field), renders each with ``render_segments`` and ``render_plain`` (the LaTeX
cache cleared before every round, so each round converts every span), and prints the best and
the median round in seconds, with the count of abstracts and of ``$…$`` spans.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from corpus import corpus_abstracts  # noqa: E402

from db.seeds import render  # noqa: E402


def one_round(abstracts: list[str]) -> float:
    """Seconds to render every abstract both ways, from a cold LaTeX cache."""
    render.latex_to_unicode.cache_clear()
    start = time.perf_counter()
    for text in abstracts:
        render.render_segments(text)
        render.render_plain(text)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    abstracts = [text for _, text in corpus_abstracts(args.corpus, args.papers)]
    spans = sum(text.count("$") // 2 for text in abstracts)
    one_round(abstracts[:200])  # imports and the converter's first use, outside the timing
    rounds = [one_round(abstracts) for _ in range(args.repeat)]
    print(f"abstracts {len(abstracts)}  $-spans ~{spans}  "
          f"best {min(rounds):.3f} s  median {statistics.median(rounds):.3f} s")


if __name__ == "__main__":
    main()
