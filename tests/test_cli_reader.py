"""``papertray similar / note / tag``: real output on the shipped seeds, JSON in the documented
shapes, undo through ``papertray undo``, and one-line errors."""

from __future__ import annotations

import json

PARM = "0412d482992496cb"


def test_similar_json_is_the_search_shape(run_cli):
    out = run_cli("similar", "6b97", "--limit", "2", "--json")
    assert out.exit_code == 0
    data = out.json()
    assert (data["query"], data["total"]) == ("like:6b971365", 30)
    assert data["notice"].startswith("papers like MO-CBO (by Bayesian, relationships, graph")
    assert [h["name"] for h in data["hits"]] == ["PHN-HVVS", "PARM"]
    assert data["hits"][0]["score"] > data["hits"][1]["score"] > 0
    text = run_cli("similar", "6b97", "--limit", "1").stdout
    assert text.startswith("e3276221  ·  PHN-HVVS          Multi-objective optimization (MOO)")


def test_similar_to_the_to_read_list(run_cli):
    assert run_cli("similar", "--to-read", "--json").json()["notice"] == (
        "no paper is marked to-read yet")
    run_cli("mark", "58f4bebc", "--to-read")
    hits = run_cli("similar", "--to-read", "--limit", "3", "--json").json()["hits"]
    assert [h["short_id"] for h in hits] == ["e0e5bc39", "197fe0e0", "f0ccd52e"]  # .., HC-SMoE
    # one to-read paper: the same list as the papers like it that are new
    alike = run_cli("similar", "58f4bebc", "--status", "new", "--limit", "3", "--json").json()
    assert [h["id"] for h in alike["hits"]] == [h["id"] for h in hits]


def test_note_set_print_clear_and_undo(run_cli):
    assert run_cli("note", "0412", "compare", "with", "GenARM", "--json").json() == {
        "changed": [{"id": PARM, "kind": "note", "old": "", "new": "compare with GenARM"}]}
    assert run_cli("note", "0412", "--json").json() == {"id": PARM, "note": "compare with GenARM"}
    assert run_cli("note", "0412").stdout == "compare with GenARM\n"
    assert run_cli("show", "0412", "--json").json()["note"] == "compare with GenARM"
    assert run_cli("note", "0412", "--clear").stdout == (
        "note saved\n  0412d482  note 'compare with GenARM' → '(none)'\n")
    assert run_cli("undo", "--json").json() == {
        "changed": [{"id": PARM, "kind": "note", "old": "", "new": "compare with GenARM"}]}


def test_tag_add_search_remove_and_undo(run_cli):
    assert run_cli("tag", "0412", "#MoE", "rl").stdout == (
        "added 2 tag(s)\n  0412d482  tag +moe\n  0412d482  tag +rl\n")
    found = run_cli("search", "tag:moe", "--json").json()
    assert [(h["name"], h["tags"]) for h in found["hits"]] == [("PARM", ["moe", "rl"])]
    assert run_cli("tag", "0412", "rl", "--remove", "--json").json() == {
        "changed": [{"id": PARM, "kind": "tag", "old": "rl", "new": ""}]}
    assert run_cli("undo").stdout == "undid 1 change(s)\n  0412d482  tag +rl\n"
    assert run_cli("search", "tag:rl", "--json").json()["total"] == 1


def test_bad_input_is_one_line(papertray):
    bad_tag = papertray("tag", "0412", "%%%")
    assert (bad_tag.exit_code, bad_tag.stderr) == (
        1, "papertray: '%%%' is not a tag: use letters, digits and - _ . + /\n")
    neither = papertray("similar")
    assert neither.exit_code == 2
    assert neither.stderr == ("papertray: give a paper ID or --to-read (not both) "
                              "(see: papertray similar --help)\n")
    unknown = papertray("note", "ffff", "text")
    assert (unknown.exit_code, unknown.stderr) == (
        1, "papertray: no paper has an id starting with ffff\n")


def test_a_note_too_long_is_refused_not_cut(papertray):
    """`papertray note ID <2,507 characters>` said "note saved" and kept the first 2,000: the
    end of the note was gone, unsaid. It is refused whole; the note before is kept."""
    assert papertray("note", "0412", "first").exit_code == 0
    long_note = "word " * 500 + "THE END"
    refused = papertray("note", "0412", long_note)
    assert (refused.exit_code, refused.stdout) == (1, "")
    assert refused.stderr == ("papertray: a note is at most 2000 characters and this one has "
                              "2507; nothing was saved\n")
    assert papertray("note", "0412").stdout == "first\n"
    exact = "x" * 2000
    assert papertray("note", "0412", exact).exit_code == 0
    assert papertray("note", "0412").stdout == exact + "\n"


def test_a_tag_typed_on_a_latin1_terminal_is_refused_not_cut(seeds_copy, data_dir, tmp_path):
    """`papertray tag ID café` from a terminal sending Latin-1 (é is the byte 0xE9, which
    Python keeps as a lone surrogate) added the tag `caf`. It is refused, saying why."""
    import os
    import subprocess

    from tests.tui_support import papertray_command

    env = {**os.environ, "LC_ALL": "C", "HOME": str(tmp_path)}
    where = ["--seeds", str(seeds_copy), "--data-dir", str(data_dir)]
    done = subprocess.run([*papertray_command(), *where, "tag", "0412", b"caf\xe9"],
                          capture_output=True, env=env, timeout=60)
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr == (b"papertray: 'caf\\udce9' is not a tag: it has bytes that are not "
                           b"UTF-8 (is the terminal's locale UTF-8?)\n")
    shown = subprocess.run([*papertray_command(), *where, "show", "0412", "--json"],
                           capture_output=True, env=env, timeout=60, check=True)
    assert json.loads(shown.stdout)["tags"] == []
