"""The vocabulary a sync keeps, and the words and clean text it is counted from."""

from __future__ import annotations

import sqlite_utils
from hypothesis import given, settings
from hypothesis import strategies as st

import db.index.rows
from db import Library
from tests.db_support import FILE_A


def _vocabulary_recount(lib: Library) -> dict[str, int]:
    counts: dict[str, int] = {}
    index = sqlite_utils.Database(lib.paths.index)
    for row in index.query("SELECT name, title, coalesce(body, abstract) AS body FROM papers"):
        text = " ".join(v for v in (row["name"], row["title"], row["body"]) if v)
        for term in db.index.rows.terms_of(text):
            counts[term] = counts.get(term, 0) + 1
    return counts


def test_the_vocabulary_follows_every_change(library, seeds_copy, tmp_path):
    from tests.db_support import ODD_SEEDS, copy_seeds

    def stored() -> dict[str, int]:
        index = sqlite_utils.Database(library.paths.index)
        return {r["term"]: r["df"] for r in index.query("SELECT term, df FROM vocab")}

    assert stored() == _vocabulary_recount(library)
    copy_seeds(seeds_copy, ODD_SEEDS)
    library.sync()
    assert stored() == _vocabulary_recount(library)
    assert stored()["bert"] == 1 and stored()["神"] == 1
    (seeds_copy / FILE_A).unlink()
    (seeds_copy / "cjk.txt").unlink()
    library.sync()
    assert stored() == _vocabulary_recount(library)
    assert "神" not in stored()
    library.sync(force=True)
    assert stored() == _vocabulary_recount(library)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
def test_vocabulary_words_of_ascii_text_are_the_regex_words(text):
    """terms_of splits ASCII text by a byte translation: the words WORD_RE finds, folded,
    without those that contain "_"."""
    from db.text import WORD_RE

    assert db.index.rows.terms_of(text) == {w for w in WORD_RE.findall(text.casefold())
                                            if "_" not in w}


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(
    ["a", " ", "\t", "\n", "\x0b", "\x0c", "\x1e", "\x1b", "\x7f", "\x85", "\xa0", "\u202e",
     "\u2067", "\u200b", "é", "中", "\ufeff", "\U0001f600"]), max_size=30))
def test_clean_skips_printable_text_and_removes_the_rest_as_before(text):
    """clean() returns text that str.isprintable() passes as it is: every character the
    control regex removes (C0, DEL, C1, bidi overrides) and the white space controls it makes
    spaces (TAB, form feed, vertical tab, NEL...) are non-printable."""
    from db.text import _CONTROL_RE, _SPACE_CONTROL_RE, clean

    assert clean(text) == _CONTROL_RE.sub("", _SPACE_CONTROL_RE.sub(" ", text))


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(
    ["a", " ", "\t", "\n", "\x1b", "\x85", "\xa0", "\u2003", "\u3000", "\u2028", "\u202e",
     "é", "中", "\x1c"]), max_size=30))
def test_one_line_skips_text_that_is_one_line_already(text):
    from db.text import clean, one_line

    assert one_line(text) == " ".join(clean(text).split())
