"""The fuzzers' text: hostile strings, queries and command lines, and the checks each must pass.

Used by the fuzz tests (``tests/test_fuzz_*.py``, a bounded, derandomized run) and by
``scripts/fuzz.py`` (random seeds, for as long as asked). A failure prints the input that
failed, shrunk by Hypothesis, ready to paste into a regression test.

* **A query** (:func:`check_query`): ``Library.search`` returns a result or raises
  :class:`~db.errors.LibraryError` with one line, and answers within :data:`QUERY_LIMIT_S`.
* **A command line** (:func:`check_cli`): ``papertray ARGS`` exits 0, 1 or 2, never with a
  traceback, and a failure says why in one line on stderr.
"""

from __future__ import annotations

import contextlib
import io
import re
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from db import Library, LibraryError
from tui.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
#: A query must be answered within this many seconds, at any library size (the design's promise
#: of a fast keystroke; the slowest query of a run is reported by ``scripts/fuzz.py``).
QUERY_LIMIT_S = 1.0


def in_the_suite(examples: int) -> settings:
    """The settings of a fuzz test in the suite: ``examples`` examples drawn from a fixed seed
    (the same every run, so the suite never fails by chance), no example database, no time
    limit per example (a slow one is the check's to judge)."""
    return settings(max_examples=examples, derandomize=True, database=None, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])

#: Strings users type, paste or pass that have broken parsers somewhere: query syntax, FTS5
#: syntax, markup, escapes, control characters, odd Unicode, numbers at the edges.
HOSTILE = (
    "", " ", '"', '""', "'", "*", "**", "-", "--", "-*", "+", "^", ":", "(", ")", "()", "[", "]",
    "{", "}", "\\", "\\\\", "%", "_", "NOT", "AND", "OR", "NEAR", "NEAR(a b, 2)", "OR OR",
    "a OR", "OR a", "-OR", '"OR"', "is:", "is:read", "is:to-read", "is:new", "is:unread",
    "is:bogus", "-is:read", "has:", "has:code", "has:nothing", "in:", 'in:"', 'in:"ICML 2025"',
    "au:", "au:a_b", "tag:", "tag:*", "-tag:x", "like:", "like:to-read", "like:0", "like:ffff",
    "like:0412d482992496cb", "c++", "self-attention", "state-of-the-art", "GPT-3.5",
    "arXiv:2101.00001", "[CLS]", "[/INST]", "[bold]x[/]", "\x1b[31mred", "\x1b]52;c;Zm9v\x07",
    "\x00", "\t", "\n", "\r\n", "\x7f", "\u200b", "\u202e", "\ufeff", "\udcff", "ＧＰＴ", "café",
    "图神经网络", "🧪", "a" * 3000, "x " * 200, "a* " * 60, "OR " * 100, '"' * 31,
    "-" * 50, "0", "-1", "1e309", "9" * 30, "nan", "%s%s%s", "{0}", "$(\\mathcal{G})",
    "re- quires", "**PARM**", "*", "a*b*c", "x:y:z", "sqlite_master", "'; DROP TABLE papers;--",
)
#: Words of the shipped seeds (so queries find papers, and rank, and correct spellings).
WORDS = tuple(sorted({w.lower() for f in sorted((ROOT / "seeds").glob("*.txt"))
                      for w in re.findall(r"[A-Za-z][A-Za-z0-9\-]{2,}",
                                          f.read_text(encoding="utf-8"))}))


def hostile_text() -> st.SearchStrategy[str]:
    """A hostile string: one of :data:`HOSTILE`, random Unicode, or a mix of words and syntax."""
    pieces = st.one_of(st.sampled_from(HOSTILE), st.sampled_from(WORDS),
                       st.sampled_from(WORDS).map(lambda w: w[: max(1, len(w) // 2)] + "*"),
                       st.sampled_from(WORDS).map(lambda w: w[:-1] + "x"))
    return st.one_of(
        st.sampled_from(HOSTILE),
        st.text(max_size=30),
        st.lists(pieces, max_size=10).map(" ".join),
        st.lists(st.one_of(pieces, st.text(max_size=4)), max_size=6).map("".join),
    )


# -- queries ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Search:
    """One call of ``Library.search(query, status, limit, offset, typing=typing)``."""

    query: str
    status: str | None = None
    limit: int = 20
    offset: int = 0
    typing: bool = False


def searches() -> st.SearchStrategy[Search]:
    """A search as the browser and the command line make them, with hostile text."""
    return st.builds(Search, hostile_text(),
                     st.sampled_from([None, "all", "new", "to-read", "read", "dismissed"]),
                     st.sampled_from([0, 1, 20, 60, 200]),
                     st.one_of(st.just(0), st.integers(0, 100), st.just(2**62)),
                     st.booleans())


def check_query(library: Library, search: Search) -> float:
    """Run ``search``; fail unless it answers (or raises a one-line ``LibraryError``) within
    :data:`QUERY_LIMIT_S`. Returns the seconds it took."""
    start = time.perf_counter()
    try:
        result = library.search(search.query, search.status, search.limit, search.offset,
                                typing=search.typing)
    except LibraryError as exc:
        assert "\n" not in str(exc) and str(exc).strip(), f"{search}: error {str(exc)!r}"
    else:
        assert result.total >= len(result.hits), f"{search}: {result.total} < {len(result.hits)}"
    took = time.perf_counter() - start
    assert took <= QUERY_LIMIT_S, f"{search} took {took:.3f} s (over {QUERY_LIMIT_S} s)"
    return took


# -- command lines ---------------------------------------------------------------------------
#: The commands a fuzzed command line runs, each with the options and arguments it takes: a
#: string is an option (a flag, or followed by a value when it ends in ``=``), None an argument.
#: ``serve`` (it serves until stopped) and no command (the browser) are left out.
COMMANDS: dict[tuple[str, ...], tuple[str | None, ...]] = {
    ("search",): (None, None, "--status=", "--limit=", "--offset=", "--snippet", "--json"),
    ("list",): ("--status=", "--limit=", "--offset=", "--json"),
    ("show",): (None, "--json"),
    ("mark",): (None, None, "--read", "--to-read", "--dismissed", "--new", "--json"),
    ("undo",): ("--json",),
    ("stats",): ("--json",),
    ("orphans",): ("--json",),
    ("sync",): ("--force", "--json"),
    ("export",): (None, "--status=", "--format=", "-o=", "--output="),
    ("similar",): (None, "--to-read", "--status=", "--limit=", "--offset=", "--json"),
    ("note",): (None, None, "--clear", "--json"),
    ("tag",): (None, None, "--remove", "--json"),
    ("marks", "backups"): ("--json",),
    ("marks", "backup"): (),
    ("marks", "repair"): (),
    ("marks", "export"): (None,),
    ("marks", "import"): (None, "--json"),
}
#: Values an argument or option is given besides hostile text: real ones, and edges.
VALUES = ("new", "to-read", "read", "dismissed", "all", "md", "json", "csv", "bibtex", "0", "1",
          "20", "10000", "10001", "-1", "99999999999999999999", "04", "0412d482992496cb", "0412",
          "f", "out.md", "marks.json", "sub/out.md", "-", "--", "--help", "-h", "--json")


def _argument(text: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    # an operating system cannot pass a NUL in an argument; surrogates stand for undecodable bytes
    return st.one_of(st.sampled_from(VALUES), text).map(lambda s: s.replace("\x00", ""))


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    """``papertray`` arguments after ``--seeds``/``--data-dir``: a real command with a random
    choice of its options and arguments, in any order, some with hostile values."""
    command = draw(st.sampled_from(sorted(COMMANDS)))
    words = list(command)
    text = hostile_text()
    for item in draw(st.lists(st.sampled_from(COMMANDS[command] or (None,)), max_size=5)):
        if item is None:
            words.append(draw(_argument(text)))
        elif item.endswith("="):
            words += [item[:-1], draw(_argument(text))]
        else:
            words.append(item)
    if draw(st.booleans()):
        words.insert(draw(st.integers(0, len(words))), draw(_argument(text)))
    return words


@dataclass(frozen=True)
class CliRun:
    status: int
    stdout: str
    stderr: str


def run_cli(argv: list[str]) -> CliRun:
    """Run the console script's ``main()`` in this process on ``argv``, as ``papertray ARGV``
    would (stdin empty); an exception it lets out propagates (a traceback)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.argv, sys.stdin
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGHUP)}
    sys.argv, sys.stdin = ["papertray", *argv], io.TextIOWrapper(io.BytesIO(b""))
    status: int | str | None = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
    except SystemExit as exc:
        status = exc.code
    finally:
        sys.argv, sys.stdin = saved
        for signum, handler in handlers.items():  # main() takes SIGTERM and SIGHUP: give them back
            signal.signal(signum, handler)
    if isinstance(status, str):  # sys.exit("message"): printed, status 1
        err.write(status + "\n")
        status = 1
    return CliRun(status or 0, out.getvalue(), err.getvalue())


def check_cli(where: list[str], argv: list[str]) -> CliRun:
    """Run ``papertray WHERE ARGV``; fail unless it exits 0, 1 or 2 and a failure is one line
    on stderr starting ``papertray:``."""
    run = run_cli([*where, *argv])
    assert run.status in (0, 1, 2), f"{argv}: exit {run.status}\n{run.stderr}"
    assert "Traceback" not in run.stderr, f"{argv}: a traceback\n{run.stderr}"
    if run.status:
        lines = run.stderr.strip("\n").split("\n")
        assert len(lines) == 1 and lines[0].startswith("papertray: "), (
            f"{argv}: exit {run.status}, not one line of error:\n{run.stderr}")
    return run
