"""The ``papertray`` command line: every command, the JSON contract, id prefixes, and user errors
as one line on stderr with a non-zero exit code (never a traceback)."""

from __future__ import annotations

import json

import click
import pytest

from tests.db_support import FILE_A, FILE_B, QUERIES

HIT_KEYS = {"id", "short_id", "name", "title", "headline", "status", "score", "collection",
            "code_url", "sources", "tags", "authors", "year", "venue"}
RESULT_KEYS = {"query", "effective_query", "notice", "total", "sort", "hidden", "hits"}
# the issue's keys, and "notices" (docs/cli.md documents it: e.g. "the index was damaged ...")
SYNC_KEYS = {"papers", "added", "removed", "changed", "reattached", "orphans", "seconds", "files",
             "notices", "matched", "ambiguous", "unmatched"}
FILE_KEYS = {"path", "status", "entries", "reason"}
STATS_KEYS = {"papers", "entries", "files", "collections", "status", "orphan_marks",
              "orphan_annotations", "problems", "library"}


def _one_error_line(run, message: str) -> None:
    assert run.exit_code != 0
    assert run.stdout == ""
    assert "Traceback" not in run.stderr
    assert run.stderr.count("\n") == 1, run.stderr
    assert run.stderr == f"papertray: {message}\n"


# -- every command ---------------------------------------------------------------------------

def test_sync_json(run_cli):
    first = run_cli("sync", "--json")
    assert first.exit_code == 0
    data = first.json()
    assert set(data) == SYNC_KEYS
    assert {k: data[k] for k in SYNC_KEYS - {"seconds", "files"}} == {
        "papers": 35, "added": 35, "removed": 0, "changed": 0, "reattached": 0, "orphans": 0,
        "matched": 0, "ambiguous": 0, "unmatched": 0, "notices": []}
    assert isinstance(data["seconds"], float) and data["seconds"] >= 0
    assert data["files"] == [
        {"path": FILE_A, "status": "loaded", "entries": 19, "reason": None},
        {"path": FILE_B, "status": "loaded", "entries": 19, "reason": None}]
    again = run_cli("sync", "--json").json()
    assert (again["added"], [f["status"] for f in again["files"]]) == (0, ["unchanged"] * 2)
    forced = run_cli("sync", "--force", "--json").json()
    assert (forced["papers"], forced["added"], [f["status"] for f in forced["files"]]) == (
        35, 0, ["loaded", "loaded"])


def test_sync_text(run_cli):
    out = run_cli("sync")
    assert out.exit_code == 0
    lines = out.stdout.splitlines()
    assert lines[:2] == [
        f"   loaded     19 entries  {FILE_A}", f"   loaded     19 entries  {FILE_B}"]
    assert lines[2].startswith("35 papers: 35 added, 0 removed, 0 changed, 0 marks re-attached, "
                               "0 orphan marks (")
    assert len(lines) == 3


def test_search_json_shape(run_cli):
    out = run_cli("search", "PARM", "--json")
    assert out.exit_code == 0
    data = out.json()
    assert set(data) == RESULT_KEYS
    assert (data["query"], data["effective_query"], data["notice"], data["total"]) == (
        "PARM", "PARM*", "", 1)
    [hit] = data["hits"]
    assert set(hit) == HIT_KEYS
    assert {k: v for k, v in hit.items() if k != "score"} == {
        "id": "0412d482992496cb", "short_id": "0412d482", "name": "PARM", "title": None,
        "headline": "Multi-objective test-time alignment aims to adapt large language models "
                    "(LLMs) to diverse multi-dimensional user preferences during inference while "
                    "keeping LLMs frozen.",
        "status": "new", "collection": "ICML 2025",
        "code_url": "https://github.com/Baijiong-Lin/PARM",
        "sources": [{"file": FILE_A, "position": 1}], "tags": [], "authors": [], "year": None,
        "venue": None}
    assert hit["score"] > 0


def test_search_words_are_joined_and_options_work(run_cli):
    joined = run_cli("search", "reinforcement", "learning", "--json", "--limit", "3").json()
    assert (joined["query"], joined["total"], len(joined["hits"])) == (
        "reinforcement learning", 8, 3)
    rest = run_cli("search", "reinforcement learning", "--json", "--limit", "3", "--offset", "6")
    assert len(rest.json()["hits"]) == 2
    scores = [h["score"] for h in joined["hits"]]
    assert scores == sorted(scores, reverse=True)


def test_search_text_output_and_notice(run_cli):
    # (quoted: the words alone, not also their acronym RL, which the seeds define)
    out = run_cli("search", '"reinforcment"', '"lerning"', "--limit", "2")
    assert out.exit_code == 0
    lines = out.stdout.splitlines()
    assert [line[:8] for line in lines] == ["88f8a6f8", "eb8c16cf"]
    assert "LMRL-Gym" in lines[0]
    assert out.stderr == ("(corrected reinforcment → reinforcement, lerning → learning)\n"
                          "… 2 of 8 shown (use --limit/--offset)\n")
    none = run_cli("search", "zzzzqqqq")
    assert (none.exit_code, none.stdout, none.stderr) == (0, "", "no papers match\n")


def test_list_is_search_with_an_empty_query(run_cli):
    listed = run_cli("list", "--json", "--limit", "100").json()
    searched = run_cli("search", "", "--json", "--limit", "100").json()
    assert set(listed) == RESULT_KEYS
    assert listed["hits"] == searched["hits"]
    assert (listed["total"], len(listed["hits"])) == (35, 35)
    assert [h["name"] for h in listed["hits"][:5]] == [
        "PARM", "WUDI-Merging", "MTL-UE", None, "S2-Track"]
    assert {h["score"] for h in listed["hits"]} == {0.0}
    page = run_cli("list", "--json", "--limit", "5", "--offset", "30").json()
    assert [h["id"] for h in page["hits"]] == [h["id"] for h in listed["hits"][30:]]
    assert len(run_cli("list").stdout.splitlines()) == 35


def test_show_json_and_prefixes(run_cli):
    full = run_cli("show", "0412d482992496cb", "--json")
    assert full.exit_code == 0
    data = full.json()
    assert set(data) == HIT_KEYS | {"abstract", "abstract_source", "urls", "note", "decision",
                                    "track", "keywords", "area", "links"}
    assert data["urls"] == ["https://github.com/Baijiong-Lin/PARM"]
    assert data["abstract_source"].startswith("Multi-objective test-time alignment aims")
    assert "**PARM**" not in data["abstract"] and "PARM" in data["abstract"]
    assert data["score"] == 0.0
    for prefix in ("0412d482", "0412D", "0412"):
        assert run_cli("show", prefix, "--json").json() == data


def test_show_text(run_cli):
    out = run_cli("show", "c6cf5bde")
    assert out.exit_code == 0
    lines = out.stdout.splitlines()
    assert lines[:5] == [
        "id:         c6cf5bde67efacf4", "name:       DipLLM", "status:     new",
        "collection: ICML 2025", f"sources:    {FILE_B}:14"]
    body = " ".join(lines[6:])
    assert "Diplomacy is a complex multiplayer game that requires both cooperation" in body


def test_show_text_has_the_note_and_tags(run_cli):
    """The note and tags are the reader's own part of the paper: ``show`` printed neither
    (only ``show --json`` and ``note ID`` did)."""
    run_cli("note", "c6cf5bde", "compare", "with", "Cicero")
    run_cli("tag", "c6cf5bde", "games", "agents")
    lines = run_cli("show", "c6cf5bde").stdout.splitlines()
    assert lines[:5] == [
        "id:         c6cf5bde67efacf4", "name:       DipLLM", "status:     new",
        "tags:       agents games", "note:       compare with Cicero"]


def test_mark_list_undo_and_stats(run_cli, seeds_copy, data_dir):
    marked = run_cli("mark", "0412d482", "722b41c7", "--to-read", "--json")
    assert marked.exit_code == 0
    assert marked.json() == {"changed": [
        {"id": "0412d482992496cb", "kind": "mark", "old": "new", "new": "to-read"},
        {"id": "722b41c7" + marked.json()["changed"][1]["id"][8:], "kind": "mark",
         "old": "new", "new": "to-read"}]}
    assert run_cli("mark", "0412", "--read").stdout == (
        "marked 1 paper(s) read\n  0412d482  to-read → read\n")
    to_read = run_cli("list", "--status", "to-read", "--json").json()
    assert [h["name"] for h in to_read["hits"]] == ["Craftium"]
    assert [h["name"] for h in run_cli("list", "--status", "read", "--json").json()["hits"]] == [
        "PARM"]
    assert run_cli("search", "is:read", "--json").json()["hits"][0]["status"] == "read"
    assert run_cli("search", "alignment", "--status", "read", "--json").json()["total"] == 1

    stats = run_cli("stats", "--json").json()
    assert stats == {
        "papers": 35, "entries": 38, "files": 2, "collections": {"ICML 2025": 35},
        "status": {"new": 33, "to-read": 1, "read": 1, "dismissed": 0}, "orphan_marks": 0,
        "orphan_annotations": 0, "problems": [],
        "library": {"seeds": [str(seeds_copy)], "from": "--seeds",
                    "index": str(data_dir / "index.sqlite"),
                    "marks": str(data_dir / "marks.sqlite")}}
    assert set(stats) == STATS_KEYS

    assert run_cli("undo", "--json").json() == {"changed": [
        {"id": "0412d482992496cb", "kind": "mark", "old": "read", "new": "to-read"}]}
    assert run_cli("undo").stdout.startswith("undid 2 mark(s)\n")
    assert run_cli("undo").stdout == "nothing to undo\n"
    assert run_cli("stats", "--json").json()["status"] == {"new": 35, "to-read": 0, "read": 0,
                                                           "dismissed": 0}
    assert run_cli("mark", "0412", "--new", "--json").json() == {"changed": []}


def test_stats_text(run_cli, seeds_copy, data_dir):
    out = run_cli("stats")
    assert out.stdout.splitlines() == [
        "papers:       35 (38 entries in 2 files)",
        "status:       35 new, 0 to-read, 0 read, 0 dismissed",
        "collection:   ICML 2025 (35)",
        "orphan marks: 0",
        f"library:      {seeds_copy} (--seeds)",
        f"index:        {data_dir / 'index.sqlite'}",
        f"marks:        {data_dir / 'marks.sqlite'}",
    ]


def test_stats_counts_each_records_venue_and_names_the_ten_largest(run_cli, tmp_path):
    """One JSON Lines file of many venues (as the public paper lists are): each record's venue
    and year is its collection; the text names ten and sums the rest, --json has every one."""
    import json

    seeds = tmp_path / "venues"
    seeds.mkdir()
    records = [{"title": f"Paper {v} {i}", "venue": f"V{v:02d}", "year": 2020 + v % 3}
               for v in range(12) for i in range(12 - v)]
    (seeds / "papers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    lines = run_cli("stats", seeds=seeds).stdout.splitlines()
    named = [line for line in lines if line.startswith("collection:")]
    assert named[:2] == ["collection:   V00 2020 (12)", "collection:   V01 2021 (11)"]
    assert named[10:] == ["collection:   and 2 more, 3 papers (--json lists every one)"]
    data = run_cli("stats", "--json", seeds=seeds).json()["collections"]
    assert len(data) == 12 and data["V11 2022"] == 1 and sum(data.values()) == len(records)


def test_orphans_command(run_cli, seeds_copy):
    assert run_cli("orphans", "--json").json() == []
    run_cli("mark", "722b41c7", "--read")
    (seeds_copy / FILE_B).unlink()
    orphans = run_cli("orphans", "--json").json()
    assert [{k: o[k] for k in ("status", "label")} for o in orphans] == [
        {"status": "read", "label": "Craftium"}]
    assert set(orphans[0]) == {"id", "status", "updated_at", "label", "note", "tags"}
    assert run_cli("stats", "--json").json()["orphan_marks"] == 1


def test_orphans_lists_notes_and_tags_whose_paper_is_gone(run_cli, seeds_copy):
    run_cli("tag", "722b41c7", "moe", "later")  # Craftium: tagged, never marked
    run_cli("note", "722b41c7", "ask", "about", "it")
    (seeds_copy / FILE_B).unlink()
    orphans = run_cli("orphans", "--json").json()
    assert [{k: o[k] for k in ("status", "label", "note", "tags")} for o in orphans] == [
        {"status": "new", "label": "Craftium", "note": "ask about it", "tags": ["later", "moe"]}]
    text = run_cli("orphans").stdout.splitlines()
    assert text[0] == "no orphan marks"
    assert text[1].startswith("722b41c7  notes ")
    assert text[1].endswith("Craftium  #later #moe note: ask about it")
    stats = run_cli("stats", "--json").json()
    assert (stats["orphan_marks"], stats["orphan_annotations"]) == (0, 1)
    assert "orphan notes/tags: 1" in run_cli("stats").stdout.splitlines()


def test_several_seed_paths_and_a_single_file(run_cli, seeds_copy, tmp_path):
    single = run_cli("stats", "--json", seeds=seeds_copy / FILE_B, data=tmp_path / "one")
    assert (single.json()["papers"], single.json()["files"]) == (19, 1)


def test_environment_variables(seeds_copy, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from tui.cli.main import cli

    monkeypatch.setenv("PAPERTRAY_SEEDS", str(seeds_copy / FILE_A))
    monkeypatch.setenv("PAPERTRAY_DATA_DIR", str(tmp_path / "env-data"))
    result = CliRunner().invoke(cli, ["stats", "--json"], catch_exceptions=False)
    assert json.loads(result.stdout)["papers"] == 19
    assert sorted(p.name for p in (tmp_path / "env-data").iterdir() if p.suffix == ".sqlite") == [
        "index.sqlite", "marks.sqlite"]


# -- the real console script: errors -----------------------------------------------------------

def test_console_script_works(papertray):
    out = papertray("search", "wudi", "--json")
    assert out.exit_code == 0 and out.stderr == ""
    assert [h["name"] for h in out.json()["hits"]] == ["WUDI-Merging"]
    version = papertray("--version", global_options=False)
    assert version.stdout == "papertray, version 0.1.0\n"


def test_unknown_id(papertray):
    _one_error_line(papertray("show", "ffffffff"), "no paper has an id starting with ffffffff")
    _one_error_line(papertray("mark", "ffff", "--read"), "no paper has an id starting with ffff")
    _one_error_line(papertray("show", "xyz"),
                    "'xyz' is not a paper id (ids are hex, like 3fa2c01b)")


def test_ambiguous_prefix(papertray):
    _one_error_line(papertray("show", "0"), "id prefix 0 is ambiguous; type more of it")


def test_missing_status_flag(papertray):
    _one_error_line(papertray("mark", "0412"),
                    "say which status: --read, --to-read, --dismissed or --new (see: papertray "
                    "mark --help)")


def test_bad_status(papertray):
    _one_error_line(
        papertray("list", "--status", "done"),
        "Invalid value for '--status': 'done' is not one of 'new', 'to-read', 'read', "
        "'dismissed'. "
        "(see: papertray list --help)")


@pytest.mark.parametrize(("args", "message"), [
    (("bogus",), "No such command 'bogus'. (see: papertray --help)"),
    (("show",), "Missing argument 'PAPER_ID'. (see: papertray show --help)"),
    (("search", "x", "--limit", "-1"),
     "Invalid value for '--limit': -1 is not in the range 0<=x<=10000. "
     "(see: papertray search --help)"),
])
def test_other_usage_errors(papertray, args, message):
    _one_error_line(papertray(*args), message)


def test_nonexistent_seeds_path_is_reported_not_fatal(papertray, seeds_copy, tmp_path):
    missing = tmp_path / "no-such-folder"
    out = papertray("--seeds", str(seeds_copy), "--seeds", str(missing), "--data-dir",
                    str(tmp_path / "d"), "sync", "--json", global_options=False)
    assert out.exit_code == 0, out.stderr
    assert "Traceback" not in out.stderr
    data = out.json()
    assert data["files"] == [
        {"path": str(missing), "status": "error", "entries": 0, "reason": "no such file or folder"},
        {"path": FILE_A, "status": "loaded", "entries": 19, "reason": None},
        {"path": FILE_B, "status": "loaded", "entries": 19, "reason": None}]
    assert data["papers"] == 35
    text = papertray("--seeds", str(missing), "--data-dir", str(tmp_path / "e"), "sync",
                     global_options=False)
    assert text.exit_code == 0
    assert text.stdout.splitlines()[0] == (
        f"    error      0 entries  {missing} (no such file or folder)")


def test_unreadable_marks_file_is_one_line_and_left_unchanged(papertray, data_dir):
    data_dir.mkdir()
    garbage = bytes(range(256)) * 16 + b"SQLite format 3\x00 but not really"
    (data_dir / "marks.sqlite").write_bytes(garbage)
    for command in (("stats",), ("sync",), ("mark", "0412", "--read"), ("list",)):
        out = papertray(*command)
        _one_error_line(out, (
            f"the marks file {data_dir / 'marks.sqlite'} cannot be read (file is not a database);"
            " papertray will not overwrite it. There is no backup of it; run `papertray marks"
            " repair` to keep what can be read of it and set it aside, or move it away to start"
            " afresh."))
        assert (data_dir / "marks.sqlite").read_bytes() == garbage
    # no index was made; beside the marks only the remembered library and the index registry
    assert sorted(p.name for p in data_dir.iterdir()) == [
        "libraries.json", "libraries.lock", "library.json", "marks.sqlite"]


def test_no_query_is_an_error_for_the_console_script(papertray):
    papertray("sync")
    for query in QUERIES:
        out = papertray("search", query, "--json", "--limit", "1")
        assert out.exit_code == 0, (query, out.stderr)
        assert out.stderr == "" and set(out.json()) == RESULT_KEYS


# -- the command tree ------------------------------------------------------------------------

def test_the_commands_are_the_issues():
    from tui.cli.main import cli

    issue = ["keys", "library", "list", "mark", "orphans", "search", "show", "stats", "sync",
             "undo"]
    assert set(issue) <= set(cli.commands)
    options = {name: sorted(p.name for p in cli.commands[name].params
                            if isinstance(p, click.Option)) for name in issue}
    assert options == {
        "keys": ["as_json"],
        "library": ["as_json", "reset"],
        "list": ["as_json", "limit", "offset", "sort", "status"],
        "mark": ["as_json", "status", "status", "status", "status"],
        "orphans": ["as_json"],
        "search": ["as_json", "limit", "offset", "snippet", "sort", "status"],
        "show": ["as_json"],
        "stats": ["as_json"],
        "sync": ["as_json", "force"],
        "undo": ["as_json"],
    }
