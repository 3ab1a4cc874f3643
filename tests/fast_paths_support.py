"""Helpers for the fast-path tests: a library synced the plain way, and what a sync wrote (to
compare a fast path's index with it); registered as a pytest plugin by conftest.py."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from db import Library


def _index(data: Path) -> dict[str, list[tuple]]:
    """Everything a sync writes that search and display read, in a stable order."""
    conn = sqlite3.connect(data / "index.sqlite")
    try:
        return {
            "papers": conn.execute(
                "SELECT id, name, title, headline, abstract_source, abstract, body, urls, "
                "code_url, collection, first_pos, authors, year, venue, details FROM papers "
                "ORDER BY id").fetchall(),
            "sources": conn.execute("SELECT position, paper_id FROM sources "
                                    "ORDER BY paper_id, position").fetchall(),
            "vocab": conn.execute("SELECT term, df FROM vocab ORDER BY term").fetchall(),
            "multi_sources": conn.execute("SELECT paper_id FROM multi_sources "
                                          "ORDER BY paper_id").fetchall(),
            # each definition with its paper (by id: a rowid is the order of the inserts)
            "paper_acronyms": conn.execute(
                "SELECT p.id, a.short, a.long, a.shown FROM paper_acronyms a LEFT JOIN papers p "
                "ON p.rowid = a.paper ORDER BY 1, 2, 3").fetchall(),
            "acronyms": conn.execute("SELECT * FROM acronyms ORDER BY short, singular").fetchall(),
        }
    finally:
        conn.close()


def _synced(seeds: Path, data: Path) -> Library:
    lib = Library([seeds], data)
    lib.sync()
    return lib


@pytest.fixture
def plain(seeds_copy: Path, tmp_path: Path) -> Path:
    """A data dir synced the plain way (in-process parsing, a trigger per paper)."""
    data = tmp_path / "plain"
    _synced(seeds_copy, data).close()
    return data
