"""Notes and tags: kept in the marks file, undoable like marks, found by tag:NAME and by the
note's words, shown in hits and papers, and added to a marks file of the previous version."""

from __future__ import annotations

import sqlite3

import pytest

from db import Library, LibraryError, MarkChange
from db.text import tag_name
from tests.db_support import FILE_A, all_hits, ids

PARM, MENTOR, M3DT = "0412d482992496cb", "eb8c16cf3afbe389", "58f4bebc8eaa994b"


def test_note_is_saved_shown_and_undone(library):
    assert library.set_note("0412", "  check the\nPBLoRA rank ") == [
        MarkChange(PARM, "", "check the PBLoRA rank", "note")]
    assert library.get(PARM).note == "check the PBLoRA rank"
    assert library.set_note(PARM, "check the PBLoRA rank") == []  # unchanged: no step
    library.set_note(PARM, "second thought")
    assert library.undo() == [MarkChange(PARM, "second thought", "check the PBLoRA rank", "note")]
    assert library.undo() == [MarkChange(PARM, "check the PBLoRA rank", "", "note")]
    assert library.get(PARM).note == ""
    assert library.undo() == []


def test_tags_are_folded_added_removed_and_undone_in_one_step(library):
    changes = library.tag(["0412", "eb8c"], ["#MoE", "Read Later", "moe"])
    assert changes == [MarkChange(paper, "", tag, "tag") for paper in (PARM, MENTOR)
                       for tag in ("moe", "read-later")]
    assert library.get(PARM).tags == ("moe", "read-later")
    assert library.tag([PARM], ["moe"]) == []  # already there
    assert library.tag([PARM], ["MOE"], remove=True) == [MarkChange(PARM, "moe", "", "tag")]
    assert library.get(PARM).tags == ("read-later",)
    assert library.undo() == [MarkChange(PARM, "", "moe", "tag")]
    assert len(library.undo()) == 4  # the first step, all four tags
    assert library.get(PARM).tags == library.get(MENTOR).tags == ()


def test_a_bad_tag_is_a_one_line_error_and_changes_nothing(library):
    for bad in ("", "#", "  ", "%%%"):
        with pytest.raises(LibraryError, match="is not a tag"):
            library.tag([PARM], ["ok", bad])
    assert library.get(PARM).tags == ()
    assert tag_name("Ünïcode Tag") == "ünïcode-tag"


def test_tag_filter_and_its_exclusion(library):
    library.tag([PARM, M3DT], ["moe"])
    library.tag([MENTOR], ["robots"])
    assert ids(all_hits(library, "tag:moe")) == [PARM, M3DT]
    assert ids(all_hits(library, "tag:#MoE")) == [PARM, M3DT]  # folded like the stored tag
    assert ids(all_hits(library, "tag:moe experts")) == [M3DT]
    assert len(all_hits(library, "-tag:moe")) == 33
    assert ids(all_hits(library, "tag:nothing")) == []
    result = library.search("tag:moe is:new")
    assert result.effective_query == "is:new tag:moe"
    hit = next(h for h in result.hits if h.id == PARM)
    assert hit.tags == ("moe",) and hit.to_json()["tags"] == ["moe"]


def test_note_words_find_the_paper_after_every_abstract_hit(library):
    library.set_note(MENTOR, "ask Zebrafish lab about PARM")
    assert ids(all_hits(library, "zebrafish")) == [MENTOR]  # in no abstract: no typo fix
    assert library.search("zebrafish").notice == ""
    # "parm" is PARM's name (a bm25 hit); MENTOR has it only in its note, so it comes after
    assert ids(all_hits(library, "parm")) == [PARM, MENTOR]
    assert ids(all_hits(library, "zebrafish lab -tag:x is:new")) == [MENTOR]
    assert ids(all_hits(library, "zebrafish is:read")) == []
    library.undo()
    assert ids(all_hits(library, "zebrafish")) == []


@pytest.mark.parametrize("query", ["zorbly-flarn", '"zorbly-flarn"', "GPT-3.5", "gpt-3",
                                   "zeta_1", "élan", "ELAN", "zorbly flarn", "zorbly OR qqq"])
def test_note_words_are_matched_as_the_abstracts_are(library, query):
    """Hyphenated and punctuated words, accents and case: a note is found by the same query
    that would find those words in an abstract."""
    library.set_note(MENTOR, "Zorbly-flarn trick; try GPT-3.5 with zeta_1 (Élan vital)")
    assert ids(all_hits(library, query)) == [MENTOR]


def test_notes_and_tags_are_exported_and_survive_a_rebuild(library):
    library.set_note(PARM, "reread section 4")
    library.tag([PARM, MENTOR], ["rl"])
    expected = [{"id": PARM, "note": "reread section 4", "tags": ["rl"]},
                {"id": MENTOR, "note": "", "tags": ["rl"]}]
    found = library.annotations()
    assert [a["note_updated_at"] is not None for a in found] == [a["note"] != "" for a in found]
    assert [{k: a[k] for k in ("id", "note", "tags")} for a in found] == sorted(
        expected, key=lambda a: a["id"])
    library.paths.index.unlink()
    library.close()
    library.sync(force=True)
    assert library.get(PARM).note == "reread section 4"
    assert ids(all_hits(library, "tag:rl")) == [PARM, MENTOR]


#: The marks file as the release before notes and tags wrote it (schema copied from that release).
_OLD_MARKS_DDL = """
CREATE TABLE marks (paper_id TEXT PRIMARY KEY,
    status TEXT NOT NULL CHECK (status IN ('to-read', 'read')), updated_at TEXT NOT NULL,
    label TEXT, anchor TEXT);
CREATE TABLE mark_events (seq INTEGER PRIMARY KEY AUTOINCREMENT, batch INTEGER NOT NULL,
    at TEXT NOT NULL, kind TEXT NOT NULL, paper_id TEXT NOT NULL, old_status TEXT NOT NULL,
    new_status TEXT NOT NULL, other TEXT);
INSERT INTO marks VALUES ('0412d482992496cb', 'read', '2026-01-01T00:00:00.000000Z', 'PARM', NULL);
INSERT INTO mark_events(batch, at, kind, paper_id, old_status, new_status)
    VALUES (1, '2026-01-01T00:00:00.000000Z', 'mark', '0412d482992496cb', 'new', 'read');
"""


def test_a_marks_file_of_the_previous_version_opens_keeps_its_marks_and_gains_notes(
        seeds_copy, data_dir):
    data_dir.mkdir()
    conn = sqlite3.connect(data_dir / "marks.sqlite")
    conn.executescript(_OLD_MARKS_DDL)
    conn.close()
    with Library([seeds_copy], data_dir) as lib:
        lib.sync()
        assert lib.get(PARM).status == "read"
        lib.tag([PARM], ["kept"])
        lib.set_note(PARM, "still here")
        assert (lib.get(PARM).tags, lib.get(PARM).note) == (("kept",), "still here")
        lib.undo()
        lib.undo()
        assert lib.undo() == [MarkChange(PARM, "read", "new")]  # the old file's own mark
        assert lib.get(PARM).status == "new"


def test_a_note_is_matched_by_words_or_their_start_not_inside_a_word(library):
    library.set_note(MENTOR, "zorblyworld flarnish")
    assert ids(all_hits(library, "flarn")) == [MENTOR]  # the start of a word (typing)
    assert ids(all_hits(library, "yworld")) == []  # inside a word: no match


def _edit_parm(seeds_copy) -> None:
    """Fix a "typo" in PARM's abstract: its id changes, its text barely."""
    seed = seeds_copy / FILE_A
    text = seed.read_text(encoding="utf-8")
    assert text.count("user preferences during inference") == 1
    seed.write_text(text.replace("user preferences during inference",
                                 "user preferences at inference"), encoding="utf-8")


def _parm(lib: Library):
    return lib.get(next(h for h in all_hits(lib) if h.name == "PARM").id)


def test_notes_and_tags_of_an_unmarked_paper_follow_its_edited_abstract(library, seeds_copy):
    library.set_note(PARM, "check the PBLoRA rank")
    library.tag([PARM], ["moe"])
    assert library.get(PARM).status == "new"
    _edit_parm(seeds_copy)
    report = library.sync()
    assert (report.added, report.removed, report.reattached, report.orphans) == (1, 1, 1, 0)
    moved = _parm(library)
    assert moved.id != PARM
    assert (moved.note, moved.tags) == ("check the PBLoRA rank", ("moe",))
    assert library.orphan_annotations() == []
    assert ids(all_hits(library, "tag:moe")) == [moved.id]
    events = sqlite3.connect(library.paths.marks).execute(
        "SELECT kind, paper_id, old_status, new_status, other FROM mark_events "
        "ORDER BY seq DESC LIMIT 1").fetchall()
    assert events == [("reattach", PARM, "", "", moved.id)]
    # undo acts on the paper the tags moved to; the note written before them comes next
    assert library.undo() == [MarkChange(moved.id, "moe", "", "tag")]
    assert library.undo() == [MarkChange(moved.id, "check the PBLoRA rank", "", "note")]


def test_notes_of_a_marks_file_without_anchors_follow_an_edit_too(seeds_copy, data_dir):
    """Notes written by the previous version have no anchor: the next sync keeps one while the
    paper is still there, and a later edit moves them."""
    data_dir.mkdir()
    conn = sqlite3.connect(data_dir / "marks.sqlite")
    conn.executescript(_OLD_MARKS_DDL + """
        CREATE TABLE notes (paper_id TEXT PRIMARY KEY, text TEXT NOT NULL,
                            updated_at TEXT NOT NULL);
        INSERT INTO notes VALUES ('0412d482992496cb', 'old note', '2026-01-01T00:00:00.000000Z');
        DELETE FROM marks;""")
    conn.close()
    with Library([seeds_copy], data_dir) as lib:
        lib.sync()
        assert lib.get(PARM).note == "old note"
        _edit_parm(seeds_copy)
        assert lib.sync().reattached == 1
        assert _parm(lib).note == "old note"


def test_a_note_whose_paper_is_gone_is_an_orphan_and_comes_back(library, seeds_copy):
    library.tag([PARM], ["moe"])
    saved = (seeds_copy / FILE_A).read_bytes()
    (seeds_copy / FILE_A).write_text("ICML 2025 Papers\n\nSomething else entirely, about cats.\n",
                                     encoding="utf-8")
    report = library.sync()
    assert report.reattached == 0
    assert [(o[0], o[2], o[4]) for o in library.orphan_annotations()] == [
        (PARM, ("moe",), "PARM")]
    assert library.stats()["orphan_annotations"] == 1
    (seeds_copy / FILE_A).write_bytes(saved)
    library.sync()
    assert library.orphan_annotations() == []
    assert library.get(PARM).tags == ("moe",)


def test_marks_notes_and_tags_follow_one_small_edit_after_another(library, seeds_copy):
    """Each sync sees one small edit (a ratio above 90 to the text before it), though the text
    drifts away from the first one: a re-attached mark, note or tag then remembers the text it
    moved to, not the text it was first written for."""
    from rapidfuzz import fuzz

    from db.marks.history import anchor

    library.set_status([PARM], "read")
    library.set_note(MENTOR, "good baseline")
    library.tag([MENTOR], ["moe"])
    seed = seeds_copy / FILE_A
    first = {pid: anchor(library.get(pid).abstract_source) for pid in (PARM, MENTOR)}
    words = {pid: library.get(pid).abstract_source.split()[:150] for pid in (PARM, MENTOR)}
    previous = dict(first)
    for step in range(4):
        text = seed.read_text(encoding="utf-8")
        for pid, old in words.items():
            new = list(old)
            new[step * 6:step * 6 + 6] = ["qqqqqqq"] * 6
            assert text.count(" ".join(old)) == 1
            text = text.replace(" ".join(old), " ".join(new))
            words[pid] = new
        seed.write_text(text, encoding="utf-8")
        report = library.sync()
        assert (report.reattached, report.orphans) == (2, 0), step
        assert library.orphan_annotations() == []
        read = ids(all_hits(library, "is:read"))
        noted = ids(all_hits(library, "tag:moe"))
        assert len(read) == len(noted) == 1
        now = {PARM: anchor(library.get(read[0]).abstract_source),
               MENTOR: anchor(library.get(noted[0]).abstract_source)}
        assert all(fuzz.ratio(previous[p], now[p]) >= 90 for p in now)
        previous = now
        assert library.get(noted[0]).note == "good baseline"
    # the last text is no longer near the first: only remembering each step kept them
    assert any(fuzz.ratio(first[p], previous[p]) < 90 for p in first)


def test_a_note_with_bytes_that_are_not_utf8_is_saved_not_a_traceback(papertray):
    """``papertray note ID café`` typed in a Latin-1 terminal: the é is the byte 0xE9, which
    Python hands over as a lone surrogate; SQLite cannot store that (UnicodeEncodeError, a
    traceback). The byte is kept as U+FFFD."""
    done = papertray("note", "0412", "caf\udce9 au lait")  # argv bytes b"caf\xe9 au lait"
    assert (done.exit_code, done.stderr) == (0, "")
    assert "note saved" in done.stdout
    assert papertray("note", "0412").stdout == "caf\ufffd au lait\n"


def test_a_note_holding_a_lone_surrogate_is_stored_with_a_replacement(library):
    """A marks file to import (JSON) may hold any escape, ``\\ud800`` too: stored as U+FFFD."""
    paper = all_hits(library)[0].id
    library.set_note(paper, "half \ud800 pair")
    assert library.get(paper).note == "half \ufffd pair"
