"""Seed folders a user might really have: huge abstracts, many files, sub-folders, links that go
nowhere, files that vanish while read, names with escape sequences; and private file modes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from db import Library
from db.index import sync as sync_db

ESC_NAME = "odd \x1b[2J\x07name.txt"


def _write(path: Path, header: str, abstracts: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + "\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")


def test_a_300_kb_abstract_loads_whole(seeds_copy, data_dir):
    words = " ".join(f"token{i}" for i in range(40_000))  # ~330 KB on one line
    _write(seeds_copy / "huge.txt", "Huge 2024", [f"We propose GIANT. {words} zzzlast."])
    with Library([seeds_copy], data_dir) as lib:
        report = lib.sync()
        assert [(f.path, f.status, f.entries) for f in report.files if f.path == "huge.txt"] == [
            ("huge.txt", "loaded", 1)]
        hit = lib.search("zzzlast").hits
        assert [h.name for h in hit] == ["GIANT"]
        assert lib.get(hit[0].id).abstract_source.endswith("token39999 zzzlast.")


def test_300_small_files_in_sub_folders_all_load(tmp_path, data_dir):
    seeds = tmp_path / "many"
    for i in range(300):
        _write(seeds / f"part{i % 7}" / f"f{i:03d}.txt", f"Set {i}",
               [f"Abstract number {i} studies topic{i} carefully."])
    (seeds / ".hidden").mkdir()
    _write(seeds / ".hidden" / "skip.txt", "Hidden", ["Never loaded abstract hiddenword."])
    with Library([seeds], data_dir) as lib:
        report = lib.sync()
        assert report.papers == 300 and len(report.files) == 300
        assert {f.status for f in report.files} == {"loaded"}
        assert lib.search("topic123").total == 1
        assert lib.search("hiddenword").total == 0


def test_links_that_go_nowhere_and_files_that_vanish(seeds_copy, data_dir, monkeypatch):
    (seeds_copy / "dangling.txt").symlink_to(seeds_copy / "no-such-file.txt")
    _write(seeds_copy / "vanishing.txt", "Gone 2024", ["An abstract that vanishes quickly."])
    real_open = Path.open

    def vanish(self, *args, **kwargs):
        if self.name == "vanishing.txt":
            self.unlink()  # deleted between the folder listing and the read
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", vanish)
    with Library([seeds_copy], data_dir) as lib:
        report = lib.sync()
        statuses = {f.path: (f.status, f.reason) for f in report.files}
        assert statuses[str(seeds_copy / "dangling.txt")] == ("error", "broken symbolic link")
        assert statuses["vanishing.txt"] == ("error", "No such file or directory")
        assert report.papers == 35 and lib.fts_ok()


def test_a_file_that_changes_while_read_is_read_again_next_time(seeds_copy, data_dir,
                                                                monkeypatch):
    target = seeds_copy / "changing.txt"
    _write(target, "Changing 2024", ["The first version mentions alphaword."])
    real_open = Path.open

    changed = []

    def change_after_stat(self, *args, **kwargs):
        if self.name == "changing.txt" and not changed:
            changed.append(True)
            _write(target, "Changing 2024", ["The second version mentions betaword now."])
            os.utime(target, ns=(1, 1))  # a different mtime than the one just stat()ed
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", change_after_stat)
    with Library([seeds_copy], data_dir) as lib:
        lib.sync()
        monkeypatch.setattr(Path, "open", real_open)
        assert lib.needs_sync()  # the fingerprint is the stat before the read: it is stale
        lib.sync()
        assert lib.search("betaword").total == 1
        assert lib.search("\"first version mentions\"").total == 0


def test_names_with_escape_sequences_never_reach_the_terminal(seeds_copy, run_cli):
    _write(seeds_copy / ESC_NAME, "Esc \x1b]52;c;aGk=\x07 2024",
           ["An abstract with \x1b[31mcrimsonword."])
    out = run_cli("sync")
    assert out.exit_code == 0
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    assert "odd [2Jname.txt" in out.stdout
    shown = run_cli("search", "crimsonword", "--json").json()["hits"][0]
    assert shown["collection"] == "Esc ]52;c;aGk= 2024"
    assert shown["sources"][0]["file"] == "odd [2Jname.txt"


def test_files_and_folders_are_private(seeds_copy, tmp_path):
    data = tmp_path / "fresh" / "data"
    with Library([seeds_copy], data) as lib:
        lib.sync()
        lib.set_status([lib.search("").hits[0].id], "read")
    for name in ("index.sqlite", "marks.sqlite"):
        assert stat.S_IMODE((data / name).stat().st_mode) == 0o600, name
    assert stat.S_IMODE(data.stat().st_mode) == 0o700


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(min_size=0, max_size=300))
def test_any_query_through_the_cli_is_answered(run_cli, text):
    out = run_cli("search", "--json", "--", text.replace("\x00", ""))
    assert out.exit_code == 0
    assert out.json()["total"] >= 0


def test_a_10000_character_query_is_answered(run_cli):
    out = run_cli("search", "--json", "--", "graph " * 1700)
    assert out.exit_code == 0 and out.json()["hits"] is not None


def test_stale_check_reads_nothing(library, seeds_copy, monkeypatch):
    monkeypatch.setattr(Path, "open", lambda *a, **k: (_ for _ in ()).throw(AssertionError))
    assert sync_db.index_is_stale(library._index(), [seeds_copy]) is False
