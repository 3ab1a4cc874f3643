"""Your library, remembered: the seed paths given once are the library of the commands that
follow (``papertray library`` shows and sets it; ``PAPERTRAY_SEEDS`` wins), each library keeps
its own index (switching back rebuilds nothing; the least recently used pruned, never one in
use), and the marks are one set shared by every library."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from db import Library
from db.store import libraries
from tests.db_support import FILE_A, FILE_B, SHIPPED_SEEDS, copy_seeds
from tui.cli.main import cli

CRAFTIUM = "722b41c7"  # a paper of FILE_B only
PARM = "0412d482"  # a paper of FILE_A only


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, Path]:
    """Two libraries: ``a`` holds FILE_A (19 papers), ``b`` both shipped files (35 papers)."""
    a = tmp_path / "lib-a"
    a.mkdir()
    (a / FILE_A).write_bytes((SHIPPED_SEEDS / FILE_A).read_bytes())
    return a, copy_seeds(tmp_path / "lib-b")


def _invoke(*args: str, data: Path):
    result = CliRunner().invoke(cli, ["--data-dir", str(data), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result


def _json(*args: str, data: Path):
    return json.loads(_invoke(*args, "--json", data=data).stdout)


def test_seeds_given_once_are_the_library_of_the_commands_that_follow(two, data_dir):
    a, b = two
    first = _invoke("--seeds", str(a), "stats", "--json", data=data_dir)
    assert first.stderr == ""  # a first library is said by nothing
    assert json.loads(first.stdout)["papers"] == 19
    later = _json("stats", data=data_dir)
    assert (later["papers"], later["library"]) == (19, {
        "seeds": [str(a)], "from": "remembered", "index": str(data_dir / "index.sqlite"),
        "marks": str(data_dir / "marks.sqlite")})
    assert json.loads((data_dir / "library.json").read_text()) == {"seeds": [str(a)]}
    switched = _invoke("--seeds", str(b), "stats", data=data_dir)
    assert switched.stderr == (f"papertray: the library is now {b} (was {a}; `papertray "
                               "library` shows it)\n")
    assert _invoke("--seeds", str(b), "stats", data=data_dir).stderr == ""  # said once
    assert _json("stats", data=data_dir)["papers"] == 35


def test_a_first_library_where_papertray_was_used_before_is_said(two, data_dir):
    a, _ = two
    assert _invoke("stats", data=data_dir).stderr == ""  # the shipped seeds, as before
    told = _invoke("--seeds", str(a), "stats", data=data_dir)
    assert told.stderr == (f"papertray: the library is now {a} (was {SHIPPED_SEEDS}; "
                           "`papertray library` shows it)\n")


def test_remembered_by_the_real_console_script_from_any_folder(papertray, two, tmp_path):
    a, _ = two
    data = tmp_path / "console"
    # a path relative to the folder it runs in (tmp_path) is remembered absolute
    given = papertray("--data-dir", str(data), "--seeds", a.name, "list", "--json",
                      global_options=False)
    assert given.exit_code == 0, given.stderr
    again = papertray("--data-dir", str(data), "list", "--json", "--limit", "100",
                      global_options=False)
    assert (again.exit_code, again.stderr) == (0, "")
    assert again.json()["total"] == 19
    assert again.json()["hits"] == papertray("--data-dir", str(data), "--seeds", str(a), "list",
                                             "--json", "--limit", "100",
                                             global_options=False).json()["hits"]
    shown = papertray("--data-dir", str(data), "library", "--json", global_options=False).json()
    assert (shown["seeds"], shown["from"]) == ([str(a)], "remembered")


def test_a_mistyped_seed_path_is_not_remembered(two, data_dir, tmp_path):
    a, _ = two
    _invoke("--seeds", str(a), "stats", data=data_dir)
    typo = _invoke("--seeds", str(tmp_path / "lib-aa"), "stats", "--json", data=data_dir)
    assert typo.stderr == f"papertray: seed path {tmp_path / 'lib-aa'}: no such file or folder\n"
    assert _json("library", data=data_dir)["seeds"] == [str(a)]


def test_papertray_seeds_wins_over_the_remembered_library(two, data_dir, monkeypatch):
    a, b = two
    _invoke("library", str(b), data=data_dir)
    monkeypatch.setenv("PAPERTRAY_SEEDS", str(a / FILE_A))
    stats = _json("stats", data=data_dir)
    assert (stats["papers"], stats["library"]["from"]) == (19, "PAPERTRAY_SEEDS")
    shown = _json("library", data=data_dir)
    assert (shown["seeds"], shown["from"], shown["remembered"]) == (
        [str(a / FILE_A)], "PAPERTRAY_SEEDS", [str(b)])
    told = _invoke("library", str(a), data=data_dir)
    assert told.stderr == ("papertray: PAPERTRAY_SEEDS is set and wins over the remembered "
                           "library while it is\n")
    monkeypatch.delenv("PAPERTRAY_SEEDS")
    assert _json("library", data=data_dir)["seeds"] == [str(a)]


def test_library_shows_sets_and_resets(two, data_dir):
    a, _ = two
    shipped = _json("library", data=data_dir)
    assert shipped == {
        "seeds": [str(SHIPPED_SEEDS)], "from": "shipped", "remembered": None, "index": None,
        "marks": str(data_dir / "marks.sqlite"), "indexes": [],
        "max_indexes": libraries.MAX_INDEXES, "max_bytes": libraries.MAX_BYTES}
    assert not (data_dir / "index.sqlite").exists()  # showing builds nothing
    lines = _invoke("library", str(a), data=data_dir).stdout.splitlines()
    assert lines == [
        f"library:  {a}",
        "from:     remembered (papertray library PATH... changes it, --reset forgets it)",
        "index:    not built yet",
        f"marks:    {data_dir / 'marks.sqlite'} (one for every library)"]
    _invoke("sync", data=data_dir)
    shown = _json("library", data=data_dir)
    assert (shown["index"], shown["remembered"]) == (str(data_dir / "index.sqlite"), [str(a)])
    [kept] = shown["indexes"]
    assert (kept["seeds"], kept["index"], kept["in_force"]) == (
        [str(a)], str(data_dir / "index.sqlite"), True)
    assert kept["bytes"] == sum(p.stat().st_size for p in data_dir.glob("index.sqlite*")
                                if not p.name.endswith("-shm"))
    text = _invoke("library", data=data_dir).stdout.splitlines()
    assert text[4:5] == ["indexes kept (1; past 8 or 4 GB the least recently used is pruned):"]
    assert text[5].startswith("  * ") and text[5].endswith(f"  {a}")
    reset = _json("library", "--reset", data=data_dir)
    assert (reset["seeds"], reset["from"], reset["remembered"]) == (
        [str(SHIPPED_SEEDS)], "shipped", None)
    assert not (data_dir / "library.json").exists()
    assert _json("stats", data=data_dir)["papers"] == 35


def test_library_refuses_a_missing_path_and_both_at_once(papertray, two, tmp_path):
    a, _ = two
    data = ["--data-dir", str(tmp_path / "d")]
    missing = papertray(*data, "library", str(tmp_path / "nowhere"), global_options=False)
    assert (missing.exit_code, missing.stderr) == (
        1, f"papertray: {tmp_path / 'nowhere'}: no such file or folder; the library is "
           "unchanged\n")
    both = papertray(*data, "library", str(a), "--reset", global_options=False)
    assert (both.exit_code, both.stderr) == (
        2, "papertray: give PATH... or --reset, not both (see: papertray library --help)\n")
    assert not (tmp_path / "d" / "library.json").exists()


def test_switching_back_to_a_library_rebuilds_nothing(two, data_dir):
    a, b = two
    built_a = _json("--seeds", str(a), "sync", data=data_dir)
    built_b = _json("--seeds", str(b), "sync", data=data_dir)
    assert (built_a["added"], built_b["added"]) == (19, 35)
    assert built_b["notices"] == []  # a new library's first build is no "missing index"
    for seeds, papers in ((a, 19), (b, 35), (a, 19)):
        back = _json("--seeds", str(seeds), "sync", data=data_dir)
        assert (back["papers"], back["added"], back["removed"], back["changed"]) == (
            papers, 0, 0, 0)
        assert {f["status"] for f in back["files"]} == {"unchanged"}
    key = libraries.library_key([b])
    assert sorted(p.name for p in data_dir.glob("index*.sqlite")) == [
        f"index-{key}.sqlite", "index.sqlite"]


def test_marks_are_one_set_for_every_library(two, data_dir):
    a, b = two
    _invoke("--seeds", str(a), "mark", PARM, "--read", data=data_dir)
    _invoke("--seeds", str(b), "mark", CRAFTIUM, "--to-read", data=data_dir)
    in_b = _json("--seeds", str(b), "list", "--status", "read", data=data_dir)
    assert [h["id"][:8] for h in in_b["hits"]] == [PARM]
    assert _json("--seeds", str(b), "stats", data=data_dir)["status"] == {
        "new": 33, "to-read": 1, "read": 1, "dismissed": 0}
    in_a = _json("--seeds", str(a), "stats", data=data_dir)
    # Craftium is not in a: its mark is kept, counted as an orphan there
    assert (in_a["status"], in_a["orphan_marks"]) == (
        {"new": 18, "to-read": 0, "read": 1, "dismissed": 0}, 1)
    assert [p.name for p in data_dir.glob("*.sqlite") if "marks" in p.name] == ["marks.sqlite"]


def test_pruning_keeps_the_index_in_use(two, tmp_path, monkeypatch):
    a, b = two
    c = tmp_path / "lib-c"
    c.mkdir()
    (c / FILE_B).write_bytes((SHIPPED_SEEDS / FILE_B).read_bytes())
    monkeypatch.setattr(libraries, "MAX_INDEXES", 1)
    monkeypatch.setattr(libraries, "IDLE_S", 0.0)
    data = tmp_path / "data"
    lib_a = Library([a], data)
    lib_a.sync()
    lib_b = Library([b], data)  # past the cap, but a's index is open (here: in this process)
    lib_b.sync()
    index_a, index_b = lib_a.paths.index, lib_b.paths.index
    assert index_a.exists() and index_b.exists()
    lib_a.close()
    lib_c = Library([c], data)  # b is still open: only a's index goes
    assert (index_a.exists(), index_b.exists()) == (False, True)
    assert lib_c.sync().added == 19
    assert [k.seeds for k in libraries.kept(data)] == [(str(c),), (str(b),)]
    assert lib_b.search("", limit=0).total == 35  # the open library works on
    lib_b.close()
    lib_c.close()
    again = Library([a], data)  # a pruned library builds its index again
    try:
        assert again.sync().added == 19
        assert again.paths.index.exists()
    finally:
        again.close()


def test_pruning_leaves_an_index_another_process_has_open(two, tmp_path, monkeypatch):
    a, b = two
    monkeypatch.setattr(libraries, "MAX_INDEXES", 1)
    monkeypatch.setattr(libraries, "IDLE_S", 0.0)
    data = tmp_path / "data"
    holder = subprocess.Popen(  # another papertray, its library a open
        [sys.executable, "-c", "import sys; from db import Library; "
         f"lib = Library([{str(a)!r}], {str(data)!r}); lib.sync(); print('open', flush=True); "
         "sys.stdin.read(); lib.close()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[1])
    try:
        assert holder.stdout.readline() == "open\n"
        index_a = data / "index.sqlite"
        with Library([b], data) as lib_b:
            lib_b.sync()
        with Library([tmp_path / "lib-a" / FILE_A], data):  # a third library: b's index goes
            pass
        assert index_a.exists()
        assert not (data / f"index-{libraries.library_key([b])}.sqlite").exists()
    finally:
        holder.communicate("", timeout=30)
    assert holder.returncode == 0


def test_an_older_papertrays_index_is_adopted_by_its_library(two, data_dir):
    a, b = two
    _json("--seeds", str(a), "sync", data=data_dir)
    (data_dir / "libraries.json").unlink()  # as an older papertray left it: one index.sqlite
    other = _json("--seeds", str(b), "sync", data=data_dir)
    assert other["added"] == 35  # built from other seeds: not b's, left alone
    adopted = _json("--seeds", str(a), "sync", data=data_dir)
    assert (adopted["added"], adopted["papers"]) == (0, 19)
    assert {k.seeds: k.index.name for k in libraries.kept(data_dir)} == {
        (str(a),): "index.sqlite", (str(b),): f"index-{libraries.library_key([b])}.sqlite"}


def test_without_data_dir_the_files_stay_in_the_tests_own_folders(two, tmp_path):
    """conftest points the XDG folders into tmp: the remembered library and the indexes too."""
    a, _ = two
    result = CliRunner().invoke(cli, ["--seeds", str(a), "stats", "--json"],
                                catch_exceptions=False)
    library = json.loads(result.stdout)["library"]
    data_home, cache_home = Path(os.environ["XDG_DATA_HOME"]), Path(os.environ["XDG_CACHE_HOME"])
    assert str(tmp_path.parent) in str(data_home)
    assert library["index"] == str(cache_home / "papertray" / "index.sqlite")
    assert json.loads((data_home / "papertray" / "library.json").read_text()) == {
        "seeds": [str(a)]}
    with Library(None) as remembered:
        assert (remembered.seed_paths, remembered.seeds_from) == ([a], "remembered")
