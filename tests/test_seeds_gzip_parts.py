"""A gzip JSON Lines file cut into parts as it is expanded (db.seeds.chunks, db.seeds.gz): the
parts handed out one by one are those of the file expanded whole; a damaged file is not cut
while it is expanded, and what was handed before the damage showed is not the result."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

import db.seeds.chunks
from db.seeds import gz
from db.seeds.chunks import split
from db.seeds.entry import SeedError
from tests.db_support import DATA

SAMPLE = DATA / "formats" / "icml_sample.jsonl"


def _lines(copies: int) -> bytes:
    """The sample paper list's records, ``copies`` times over (numbered: every line differs)."""
    records = SAMPLE.read_bytes().splitlines()
    return b"".join(line.replace(b'{"', b'{"n": %d, "' % i, 1) + b"\n"
                    for i in range(copies) for line in records)


def _cut(path: Path, data: bytes) -> tuple[db.seeds.chunks.Parts | None, list[bytes]]:
    handed: list[bytes] = []
    parts = split(path, data, lambda name, part: handed.append(part) if name == Path(
        path.name[:-3]) else None)
    return parts, handed


@pytest.fixture
def small_parts(monkeypatch):
    monkeypatch.setattr(db.seeds.chunks, "PART_BYTES", 20_000)


def test_the_parts_handed_as_expanded_are_those_of_the_whole_file(small_parts) -> None:
    lines = _lines(300)
    data = gzip.compress(lines)
    streamed, handed = _cut(Path("papers.jsonl.gz"), data)
    whole = split(Path("papers.jsonl.gz"), data)
    assert streamed is not None and whole is not None
    assert streamed.handed and not whole.handed
    assert handed == streamed.parts == whole.parts
    assert len(handed) >= 10 and b"".join(p.lstrip(b"\n") for p in handed) == lines
    assert streamed.shares == whole.shares and sum(streamed.shares) == len(data)
    assert (streamed.name, streamed.kind, streamed.note) == (Path("papers.jsonl"), "jsonl", "")
    # each part starts with the empty lines before it: a record's line is its line in the file
    before = [len(p) - len(p.lstrip(b"\n")) for p in handed]
    assert before == [sum(q.lstrip(b"\n").count(b"\n") for q in handed[:i])
                      for i in range(len(handed))]
    assert before[0] == 0 and before[-1] > 0


def test_two_gzip_members_are_one_file(small_parts) -> None:
    lines = _lines(300)
    half = len(lines) // 2
    half = lines.index(b"\n", half) + 1
    data = gzip.compress(lines[:half]) + gzip.compress(lines[half:])
    streamed, handed = _cut(Path("papers.jsonl.gz"), data)
    assert streamed is not None and streamed.handed
    assert handed == split(Path("papers.jsonl.gz"), data).parts
    assert b"".join(p.lstrip(b"\n") for p in handed) == lines


@pytest.mark.parametrize("damage", ["cut short", "junk after", "bad checksum"])
def test_a_damaged_file_is_cut_as_before_whatever_was_handed(small_parts, damage) -> None:
    lines = _lines(300)
    data = gzip.compress(lines)
    if damage == "cut short":
        data = data[:len(data) * 2 // 3]
    elif damage == "junk after":
        data += b"not gzip"
    else:  # the CRC-32 of the expanded bytes, in the last 8 bytes
        data = data[:-8] + bytes(b ^ 0xFF for b in data[-8:-4]) + data[-4:]
    with pytest.raises(gz.Unusual):
        b"".join(gz.blocks(data))
    streamed, handed = _cut(Path("papers.jsonl.gz"), data)
    whole = split(Path("papers.jsonl.gz"), data)
    assert len(handed) >= 1  # (the first parts were handed before the damage showed)
    if whole is None:
        assert streamed is None
    else:
        assert not streamed.handed
        assert (streamed.parts, streamed.shares, streamed.note) == (
            whole.parts, whole.shares, whole.note)
    if damage == "cut short":  # its complete lines load, and the report says so
        assert whole.note.startswith("the gzip file is cut short: its first ")


def test_a_small_or_utf16_file_is_read_whole_and_nothing_is_handed(small_parts) -> None:
    assert _cut(Path("a.jsonl.gz"), gzip.compress(_lines(1)[:15_000])) == (None, [])
    utf16 = _lines(200).decode().encode("utf-16")
    assert _cut(Path("a.jsonl.gz"), gzip.compress(utf16)) == (None, [])
    assert split(Path("a.jsonl.gz"), gzip.compress(utf16)) is None


def test_damaged_deflate_data_is_a_file_in_error_not_a_crash(small_parts, tmp_path) -> None:
    """A bit flipped in the deflate data makes zlib raise ``zlib.error`` (no OSError) where
    the first 64 KiB are looked at: the file is not cut, :func:`gz.gunzip` says it is not a
    readable gzip file, and a sync reports it in error and loads the other seed files."""
    from db import Library
    from tests.db_support import FILE_A, SHIPPED_SEEDS

    data = gzip.compress(_lines(300), mtime=0)
    bad = data[:500] + bytes([data[500] ^ 0xFF]) + data[501:]
    assert not gz.head_ok(bad)
    assert _cut(Path("papers.jsonl.gz"), bad) == (None, [])
    with pytest.raises(SeedError, match="not a readable gzip file"):
        gz.gunzip(bad, lines=True)
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "papers.jsonl.gz").write_bytes(bad)
    (seeds / FILE_A).write_bytes((SHIPPED_SEEDS / FILE_A).read_bytes())
    lib = Library([seeds], tmp_path / "data")
    try:
        report = lib.sync()
        assert {f.path: f.status for f in report.files} == {"papers.jsonl.gz": "error",
                                                            FILE_A: "loaded"}
        assert report.papers == lib.search("").total > 0
    finally:
        lib.close()


def test_a_line_longer_than_many_blocks_is_cut_as_the_whole_file(small_parts, monkeypatch
                                                                  ) -> None:
    """A record longer than many expanded blocks is gathered in place and searched on from
    where the last search stopped: the parts are still those of the file expanded whole."""
    blocks = gz.blocks
    monkeypatch.setattr(gz, "blocks", lambda data: blocks(data, 997))
    lines = _lines(30) + b'{"abstract": "' + b"long " * 40_000 + b'"}\n' + _lines(30)
    data = gzip.compress(lines)
    streamed, handed = _cut(Path("papers.jsonl.gz"), data)
    whole = split(Path("papers.jsonl.gz"), data)
    assert streamed is not None and whole is not None and streamed.handed
    assert handed == streamed.parts == whole.parts and len(handed) >= 10
    assert max(map(len, handed)) > 200_000
