"""A sync's progress in papers, and one big seed file parsed in parts: the index it gives is the
one the file parsed whole gives (ids, positions, collection, vocabulary, skipped lines)."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

import pytest

import db.index.sync
import db.seeds.chunks
import db.seeds.parallel
from db import Library
from db.seeds.chunks import split
from tests.db_support import copy_seeds

#: Tables whose every row a build from parts must give as a build of the whole file does.
TABLES = {
    "papers": "SELECT id, name, title, headline, abstract, year, venue, authors, collection "
              "FROM papers ORDER BY id",
    "sources": "SELECT file, position, paper_id, meta FROM sources ORDER BY file, position",
    "files": "SELECT path, status, entries, reason, collection FROM files ORDER BY path",
    "vocab": "SELECT term, df FROM vocab ORDER BY term",
}


def _records(n: int) -> list[str]:
    """``n`` JSON Lines: papers of two venues (ICLR first, NeurIPS the commoner in the whole
    file), one in ten with none (the file's collection is theirs), a record repeated in a
    later part, a line that is not JSON and a record with neither title nor abstract."""
    lines = []
    for i in range(n):
        record = {"title": f"Paper {i} on sparse graph kernels",
                  "abstract": f"We study problem {i} with a kernel of rank {i % 7} and learn "
                              f"{'policies' if i % 2 else 'graphs'} from {i * 13 % 101} "
                              "samples.",
                  "authors": [f"Author {i % 11}"]}
        if i % 10:
            record.update(venue="ICLR" if i < n * 2 // 5 else "NeurIPS", year=2024)
        lines.append(json.dumps(record))
    lines[n // 2] = "{not json"
    lines[n // 2 + 3] = json.dumps({"venue": "ICLR"})
    lines.append(lines[5])  # the same paper again, in the last part
    return lines


def _rows(data: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(data / "index.sqlite")
    try:
        return {name: conn.execute(sql).fetchall() for name, sql in TABLES.items()}
    finally:
        conn.close()


def _build(seeds: Path, data: Path, parts: bool, monkeypatch,
           stream: bool = True) -> dict[str, list[tuple]]:
    """The index of a first build with worker processes, the seed file cut into ~20 parts
    when ``parts``, else parsed whole (one task); each part written as it is parsed with
    ``stream`` (a large first build), else the parts joined first (a small one); a forced
    rebuild (streamed) then gives the same index."""
    monkeypatch.setattr(db.index.sync, "STREAM_MIN_BYTES", 0 if stream else 1 << 40)
    monkeypatch.setattr(db.seeds.parallel, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(db.seeds.parallel, "workers", lambda: 2)
    size = sum(f.stat().st_size for f in seeds.iterdir())
    monkeypatch.setattr(db.seeds.chunks, "PART_BYTES", size // 20 if parts else 1 << 40)
    joined, join = [], db.seeds.chunks.join
    monkeypatch.setattr(db.seeds.chunks, "join",
                        lambda parts, results: joined.append(len(results)) or join(parts, results))
    with Library([seeds], data) as lib:
        report = lib.sync()
        assert lib.fts_ok()
    assert report.added > 0
    assert all(n >= 19 for n in joined) and len(joined) == (1 if parts else 0)
    built = _rows(data)
    monkeypatch.setattr(db.index.sync, "STREAM_MIN_BYTES", 0)
    with Library([seeds], data) as lib:
        assert lib.sync(force=True).changed == 0
        assert lib.fts_ok()
    assert _rows(data) == built
    return built


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "joined"])
@pytest.mark.parametrize("name", ["papers.jsonl", "papers.jsonl.gz"])
def test_a_json_lines_file_parsed_in_parts_gives_the_index_of_the_whole(
        tmp_path: Path, monkeypatch, name: str, stream: bool) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    text = ("\n".join(_records(600)) + "\n").encode()
    (seeds / name).write_bytes(gzip.compress(text) if name.endswith(".gz") else text)
    whole = _build(seeds, tmp_path / "whole", False, monkeypatch, stream)
    parted = _build(seeds, tmp_path / "parts", True, monkeypatch, stream)
    assert parted == whole
    [(_, status, entries, reason, collection)] = whole["files"]
    assert (status, entries, collection) == ("loaded", 599, "NeurIPS 2024")
    assert reason == ("1 line(s) with invalid JSON left out: 301; "
                      "1 line(s) with no title or abstract left out: 304")
    assert [r[1] for r in whole["sources"]] == list(range(1, 600))  # (one paper twice)
    assert {r[8] for r in whole["papers"] if r[6] is None} == {"NeurIPS 2024"}


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "joined"])
def test_a_text_file_parsed_in_parts_gives_the_index_of_the_whole(
        tmp_path: Path, monkeypatch, stream: bool) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    shipped = copy_seeds(tmp_path / "shipped")
    paragraphs = [p for f in sorted(shipped.iterdir())
                  for p in f.read_text(encoding="utf-8").split("\n\n")[1:] if p.strip()]
    (seeds / "icml.txt").write_text("ICML 2025 Papers\r\n\r\n" + "\r\n \r\n".join(
        paragraphs * 4) + "\r\n", encoding="utf-8")
    whole = _build(seeds, tmp_path / "whole", False, monkeypatch, stream)
    parted = _build(seeds, tmp_path / "parts", True, monkeypatch, stream)
    assert parted == whole
    assert whole["files"][0][1:] == ("loaded", len(paragraphs) * 4, None, "ICML 2025")


def test_what_is_cut_into_parts() -> None:
    """Large JSON Lines and text files with a header; not a text file whose first line is an
    abstract, nor UTF-16, nor small files."""
    body = ("An abstract of several words that ends here.\n\n" * 40_000).encode()
    assert len(split(Path("a.txt"), b"ICML 2025\n\n" + body).parts) > 1
    assert split(Path("a.txt"), body) is None
    assert split(Path("a.txt"), ("ICML 2025\n\n" + body.decode()).encode("utf-16")) is None
    assert split(Path("a.jsonl"), b'{"title": "t"}\n' * 10) is None
    lines = b"".join(b'{"title": "title %d"}\n' % (i * 7919 % 100_003) for i in range(200_000))
    parts = split(Path("a.jsonl.gz"), gzip.compress(lines))
    assert parts is not None and parts.name == Path("a.jsonl")
    assert b"".join(p.lstrip(b"\n") for p in parts.parts) == lines
    assert sum(parts.shares) == len(gzip.compress(lines))  # (the bytes of the file itself)
    assert all(share > 0 for share in parts.shares)


def test_progress_counts_papers_up_to_the_total(tmp_path: Path, monkeypatch) -> None:
    """``progress(done, total)``: papers parsed, never more than the total, which is exact at
    the last call; a sync with nothing to parse never calls it."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "papers.jsonl").write_text("\n".join(_records(600)) + "\n", encoding="utf-8")
    copy_seeds(seeds / "icml")
    monkeypatch.setattr(db.seeds.parallel, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(db.seeds.parallel, "workers", lambda: 2)
    monkeypatch.setattr(db.seeds.chunks, "PART_BYTES", 10_000)
    calls: list[tuple[int, int]] = []
    with Library([seeds], tmp_path / "data") as lib:
        lib.sync(progress=lambda done, total: calls.append((done, total)))
        assert len(calls) > 10  # each part of the big file, and each small file
        assert calls[-1] == (599 + 38, 599 + 38)
        assert all(d <= t for d, t in calls)
        assert [d for d, _ in calls] == sorted(d for d, _ in calls)
        calls.clear()
        lib.sync(progress=lambda done, total: calls.append((done, total)))
        assert calls == []
