"""Decoding seed files: encodings, line endings, control bytes, binary and empty files."""

from __future__ import annotations

import codecs
import gzip
from pathlib import Path

import pytest

from db import Library
from db.seeds.decode import DecodeError, decode
from db.seeds.entry import SeedError
from db.seeds.read import parse_file
from db.text import clean
from tests.db_support import FILE_A, FILE_B

TEXT = "Header 2025\n\nWe study Schrödinger bridges for data.\n\nA second abstract.\n"


def test_utf8_bom_and_crlf():
    data = codecs.BOM_UTF8 + TEXT.replace("\n", "\r\n").encode("utf-8")
    assert decode(data) == TEXT


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_with_bom(codec):
    bom = codecs.BOM_UTF16_LE if codec.endswith("le") else codecs.BOM_UTF16_BE
    assert decode(bom + TEXT.encode(codec)) == TEXT
    collection, entries = parse_file(Path("x.txt"), bom + TEXT.replace("\n", "\r\n").encode(codec))
    assert collection == "Header 2025"
    assert [e.abstract_source for e in entries] == [
        "We study Schrödinger bridges for data.", "A second abstract."]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom(codec):
    """UTF-16 with no byte-order mark (written by Python's ``encode("utf-16-le")``, some
    exporters and PowerShell pipes): every other byte of its Latin text is NUL. It was
    refused as "binary data (NUL bytes), not text"."""
    data = TEXT.replace("\n", "\r\n").encode(codec)
    assert decode(data) == TEXT
    collection, entries = parse_file(Path("x.txt"), data)
    assert collection == "Header 2025"
    assert [e.abstract_source for e in entries] == [
        "We study Schrödinger bridges for data.", "A second abstract."]
    records = '[{"title": "T", "abstract": "We study Schrödinger bridges for data."}]'
    assert [e.title for e in parse_file(Path("x.json"), records.encode(codec))[1]] == ["T"]


def test_latin1_and_cp1252_fallback():
    assert decode(TEXT.encode("latin-1")) == TEXT
    assert decode("It’s “quoted” — 5 €.\n".encode("cp1252")) == "It’s “quoted” — 5 €.\n"
    # 0x81 is undefined in cp1252: Latin-1 takes over (and the C1 control is dropped)
    assert decode(b"a caf\xe9 with a \x81 byte that cp1252 lacks") == (
        "a café with a  byte that cp1252 lacks")


def test_lone_cr_line_endings():
    assert decode(TEXT.replace("\n", "\r").encode()) == TEXT


def test_nul_control_and_escape_bytes_are_removed():
    data = b"Header 2025\n\nA \x00clean\x07 abstract \x1b[2Jwith\x1b]0;title\x07 escapes\x7f.\n"
    assert decode(data) == "Header 2025\n\nA clean abstract [2Jwith]0;title escapes.\n"
    assert clean("tab\there \u202eevil\u202c") == "tab here evil"


@pytest.mark.parametrize("junk", [
    bytes(range(256)) * 20,
    gzip.compress(b"We propose a method. " * 200, mtime=0),
    b"\x00\x01\x02\x03" * 300,
    b"\x89PNG\r\n\x1a\n" + bytes(2000),
])
def test_binary_junk_is_reported(junk):
    with pytest.raises(DecodeError):
        decode(junk)
    with pytest.raises(SeedError) as err:
        parse_file(Path("junk.txt"), junk)
    assert err.value.status == "error"
    assert str(err.value) in ("binary data (NUL bytes), not text", "binary data, not text")


def test_binary_junk_next_to_the_seeds_is_reported_and_the_rest_loads(seeds_copy, data_dir):
    (seeds_copy / "junk.txt").write_bytes(bytes(range(256)) * 20)
    (seeds_copy / "utf16.txt").write_bytes(codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"))
    with Library([seeds_copy], data_dir) as lib:
        report = lib.sync()
        assert [(f.path, f.status, f.entries, f.reason) for f in report.files] == [
            (FILE_A, "loaded", 19, ""), (FILE_B, "loaded", 19, ""),
            ("junk.txt", "error", 0, "binary data, not text"),
            ("utf16.txt", "loaded", 2, ""),
        ]
        assert report.papers == 37
        assert lib.stats()["problems"] == [
            {"file": "junk.txt", "reason": "binary data, not text"}]
        assert lib.stats()["collections"] == {"ICML 2025": 35, "Header 2025": 2}
        assert [h.headline for h in lib.search("schrodinger").hits] == [
            "We study Schrödinger bridges for data."]


def test_empty_and_header_only_texts_are_empty():
    with pytest.raises(SeedError) as err:
        parse_file(Path("e.txt"), b"  \n\n \r\n")
    assert (err.value.status, str(err.value)) == ("empty", "empty file")
    with pytest.raises(SeedError) as err:
        parse_file(Path("h.txt"), b"ICML 2025 Papers\n\n\n")
    assert (err.value.status, str(err.value)) == ("empty", "header only, no abstracts")
