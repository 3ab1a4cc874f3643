"""The rules of the road (DESIGN.md): db/ never imports Textual or Rich, tui/ holds no SQL, the
import-linter contracts hold, the code is ruff-clean, and the seeds ship byte for byte."""

from __future__ import annotations

import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import db
from tests.db_support import REPO, SHIPPED_SEEDS

BIN = Path(sys.executable).parent


def _db_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(db.__path__, "db."))


def test_db_has_a_room_for_each_stage():
    """seed file -> parse (seeds) -> index/sync (index) -> search, marks beside them (marks),
    the two files below all (store), one façade on top (library)."""
    packages = {m.name for m in pkgutil.iter_modules(db.__path__) if m.ispkg}
    assert packages == {"store", "seeds", "index", "search", "marks", "library"}


def test_tui_has_a_room_for_each_front_end():
    """The command line and the browser, and beside them what both use: the glyphs they draw
    (tui.glyphs), the actions and their keys (tui.actions, tui.keymap)."""
    import tui

    packages = {m.name for m in pkgutil.iter_modules(tui.__path__) if m.ispkg}
    assert packages == {"cli", "browser"}


def test_db_never_imports_textual_or_rich(tmp_path):
    """Import every db module and exercise the library (lazy imports too) in a fresh process."""
    code = f"""
import sys, importlib
for name in {_db_modules()!r}:
    importlib.import_module(name)
from db import Library
lib = Library([{str(SHIPPED_SEEDS)!r}], {str(tmp_path / "data")!r})
lib.sync()
hit = lib.search("reinforcment lerning").hits[0]
lib.get(hit.id).to_json()
lib.set_status([hit.id], "read"); lib.undo()
from db.seeds.render import render_segments
render_segments(r"$\\mathcal{{G}}$ and \\textit{{x}} **b**")
bad = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich", "tui"))
print(bad)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "[]\n"


#: The import-linter contracts in pyproject.toml, each kept (lint-imports prints them so).
CONTRACTS = (
    "db never imports the front ends or Textual",
    "db's stages import one way, top to bottom",
    "tui: the command line above the browser above what both share",
    "the command line imports the browser only to start it",
    "the browser's modules import one way, top to bottom",
    "no import circles in db or tui",
)


def test_the_import_contracts_are_the_ones_named_here():
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    names = [c["name"] for c in config["tool"]["importlinter"]["contracts"]]
    assert names == list(CONTRACTS)


def test_import_linter_contracts_hold():
    """Each contract by name, and the count: a contract that is dropped or broken fails here."""
    lint = BIN / "lint-imports"
    if not lint.exists():
        pytest.fail("lint-imports is not installed next to the running Python (the test extra "
                    "installs import-linter)")
    out = subprocess.run([str(lint)], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    report = " ".join(out.stdout.split())  # a long contract name is wrapped over two lines
    for name in CONTRACTS:
        assert f"{name} KEPT" in report, name
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in report


SQL_RE = re.compile(r"\b(SELECT\s+.+\s+FROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|"
                    r"CREATE\s+(TABLE|INDEX|VIRTUAL|TRIGGER)|DROP\s+TABLE|PRAGMA)\b")


def test_tui_holds_no_sql():
    offenders = []
    for path in sorted((REPO / "tui").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), start=1):
            if SQL_RE.search(line) or ".execute(" in line or "sqlite3.connect" in line:
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert offenders == []


def test_ruff_is_clean():
    ruff = BIN / "ruff"
    command = [str(ruff)] if ruff.exists() else [sys.executable, "-m", "ruff"]
    out = subprocess.run([*command, "check", "--no-cache", "."], capture_output=True, text=True,
                         cwd=REPO, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr


def test_shipped_seeds_are_the_two_files():
    assert sorted(p.name for p in SHIPPED_SEEDS.iterdir()) == [
        "000_cd03ecd68f8352ab.txt", "002_877e65d5360e0aa3.txt"]
    shared = REPO.parent / "shared" / "seeds"
    if shared.is_dir():  # next to a checkout of the project: they must be the same bytes
        for seed in SHIPPED_SEEDS.iterdir():
            assert seed.read_bytes() == (shared / seed.name).read_bytes()


def test_the_odd_cases_are_copied_into_the_repo():
    data = REPO / "tests" / "data"
    assert (data / "queries.json").is_file() and (data / "README.md").is_file()
    shared = REPO.parent / "shared" / "cases"
    if shared.is_dir():
        for name in ("queries.json", "README.md"):
            assert (data / name).read_bytes() == (shared / name).read_bytes()
        for case in (shared / "seeds-odd").iterdir():
            assert (data / "seeds-odd" / case.name).read_bytes() == case.read_bytes()


def test_wheel_ships_the_seeds():
    """pyproject maps seeds/ into the wheel as db/shipped_seeds, where db.seeds looks first."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    wheel = config["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["packages"] == ["db", "tui"]
    assert wheel["force-include"] == {"seeds": "db/shipped_seeds"}
    from db.seeds.discover import shipped_seeds

    assert shipped_seeds().resolve() == SHIPPED_SEEDS.resolve()
