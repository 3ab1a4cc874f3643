"""Notes and tags: kept in the marks file, undoable like marks, found by tag:NAME and by the
note's words, shown in hits and papers, and added to a marks file of the previous version."""

from __future__ import annotations

import sqlite3

import pytest

from db import Library, LibraryError, MarkChange
from db.notes import tag_name
from tests.db_support import all_hits, ids

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
