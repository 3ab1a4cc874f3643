"""Fixtures and helpers for the data-layer and CLI tests: real seed files and real SQLite files in
temporary folders (registered as a pytest plugin by conftest.py).

Every library here is opened with an explicit ``data_dir`` inside pytest's tmp_path; conftest.py
also points HOME and the XDG folders into tmp, so no test can touch the user's own files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from db import Library
from db.seeds.read import parse_file
from tui.cli.main import cli

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
SHIPPED_SEEDS = REPO / "seeds"
DATA = TESTS / "data"
ODD_SEEDS = DATA / "seeds-odd"
QUERIES: list[str] = json.loads((DATA / "queries.json").read_text(encoding="utf-8"))

#: The shipped seed files, by name (byte for byte the files of the shared seeds folder).
FILE_A = "000_cd03ecd68f8352ab.txt"  # header "ICML 2025 论文列表", 19 abstracts
FILE_B = "002_877e65d5360e0aa3.txt"  # header "ICML 2025 Papers", 19 abstracts


def synced_file_a(tmp_path: Path) -> tuple[Path, Library]:
    """A library of the first shipped seed file alone (:data:`FILE_A`), synced: its seed
    folder (the other file may be added later) and it."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    shutil.copy2(SHIPPED_SEEDS / FILE_A, seeds / FILE_A)
    lib = Library([seeds], tmp_path / "data")
    lib.sync()
    return seeds, lib


def copy_seeds(target: Path, *sources: Path) -> Path:
    """Copy every ``*.txt`` of the given folders into ``target`` (created); returns ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    for folder in sources or (SHIPPED_SEEDS,):
        for file in sorted(folder.glob("*.txt")):
            shutil.copy2(file, target / file.name)
    return target


def _parse(name: str):
    """``(collection, entries)`` of the shipped seed file ``name``, parsed without a library."""
    path = SHIPPED_SEEDS / name
    return parse_file(path, path.read_bytes())


@pytest.fixture
def seeds_copy(tmp_path: Path) -> Path:
    """A private copy of the shipped seed folder, free to edit."""
    return copy_seeds(tmp_path / "seeds")


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """The folder for index.sqlite and marks.sqlite."""
    return tmp_path / "data"


@pytest.fixture
def library(seeds_copy: Path, data_dir: Path):
    """A synced library over a copy of the shipped seeds."""
    lib = Library([seeds_copy], data_dir)
    lib.sync()
    yield lib
    lib.close()


@pytest.fixture(scope="module")
def shipped_library(tmp_path_factory: pytest.TempPathFactory):
    """One synced library over the shipped seeds per module, for read-only tests and hypothesis."""
    base = tmp_path_factory.mktemp("shipped")
    lib = Library([copy_seeds(base / "seeds")], base / "data")
    lib.sync()
    yield lib
    lib.close()


def all_hits(lib: Library, query: str = "", **kwargs):
    """Every hit of a query (not only the first page)."""
    return lib.search(query, limit=10_000, **kwargs).hits


def ids(hits) -> list[str]:
    return [h.id for h in hits]


def first_words(text: str, n: int = 3) -> str:
    return " ".join(text.split()[:n])


@dataclass
class CliRun:
    """What one run of the command line gave."""

    exit_code: int
    stdout: str
    stderr: str

    def json(self):
        return json.loads(self.stdout)


@pytest.fixture
def run_cli(seeds_copy: Path, data_dir: Path) -> Callable[..., CliRun]:
    """Run ``papertray --seeds <copy> --data-dir <tmp> ARGS`` in-process with click's CliRunner.

    Exceptions are not swallowed: a traceback-worthy failure fails the test where it happens.
    """
    # the width a terminal-less run gets (shutil's fallback), whoever runs the tests: pytest-xdist
    # sets COLUMNS=80 in its workers, and `show` wraps the abstract at the terminal's width
    runner = CliRunner(env={"COLUMNS": "100"})

    def run(*args: str, seeds: Path | None = None, data: Path | None = None,
            stdin: bytes | None = None) -> CliRun:
        argv = ["--seeds", str(seeds or seeds_copy), "--data-dir", str(data or data_dir), *args]
        result: Result = runner.invoke(cli, argv, input=stdin, catch_exceptions=False)
        return CliRun(result.exit_code, result.stdout, result.stderr)

    return run


def console_script() -> list[str]:
    """The installed ``papertray`` console script (next to the running Python)."""
    script = Path(sys.executable).with_name("papertray")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from tui.cli.main import main; main()"]


@pytest.fixture
def papertray(seeds_copy: Path, data_dir: Path, tmp_path: Path) -> Callable[..., CliRun]:
    """Run the real console script in a subprocess (its error handling, exit codes, stderr)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERTRAY_")}
    env.update(HOME=str(tmp_path / "home"), PYTHONIOENCODING="utf-8", COLUMNS="120")

    def run(*args: str, seeds: Path | None = None, data: Path | None = None,
            global_options: bool = True) -> CliRun:
        argv = [*console_script()]
        if global_options:
            argv += ["--seeds", str(seeds or seeds_copy), "--data-dir", str(data or data_dir)]
        proc = subprocess.run([*argv, *args], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=60, stdin=subprocess.DEVNULL)
        return CliRun(proc.returncode, proc.stdout, proc.stderr)

    return run


def corpus_file(name: str) -> Path:
    """A file of the shared corpora (``PAPERTRAY_CORPORA`` names their folder); the test is
    skipped, saying so, where they are not."""
    folder = os.environ.get("PAPERTRAY_CORPORA")
    path = Path(folder) / name if folder else None
    if path is None or not path.is_file():
        pytest.skip(f"set PAPERTRAY_CORPORA to the folder holding {name}")
    return path
