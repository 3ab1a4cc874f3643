"""gzip-compressed seed files expanded, with a guard against a "zip bomb" and the complete lines
of a JSON Lines file cut short (a download stopped mid-stream).
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator

from db.seeds.decode import DecodeError, decode
from db.seeds.entry import SeedError

#: gzip-compressed seed files are read up to this many bytes once expanded (a guard against a
#: "zip bomb"; the 87,409-abstract corpus is 120 MB expanded).
MAX_EXPANDED_BYTES = 1 << 30
#: ... and the first this many bytes expanded are looked at first (binary junk is refused then)
_HEAD_BYTES = 1 << 16


def gunzip(data: bytes, lines: bool = False) -> tuple[bytes, str]:
    """The expanded bytes of a gzip file, and a note ("" when whole). Raises :class:`SeedError`
    when it is damaged or huge.

    With ``lines`` (JSON Lines), a file cut short (a download stopped mid-stream) gives its
    complete lines and a note saying so, so that the papers before the cut still load.
    """
    note = ""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as fh:
            _check_head(fh)
            out = fh.read(MAX_EXPANDED_BYTES + 1)
    except DecodeError as exc:
        raise SeedError("error", str(exc)) from None
    except (OSError, EOFError, zlib.error) as exc:  # (zlib.error: damaged deflate data)
        out = _gunzip_start(data) if lines and isinstance(exc, EOFError) else b""
        if b"\n" not in out:
            raise SeedError("error", f"not a readable gzip file ({exc})") from None
        out = out[:out.rindex(b"\n") + 1]
        read = out.count(b"\n")
        note = f"the gzip file is cut short: its first {read} lines read"
    if len(out) > MAX_EXPANDED_BYTES:
        raise SeedError("error", f"expands to more than {MAX_EXPANDED_BYTES >> 20} MiB")
    return out, note


def _check_head(fh: gzip.GzipFile) -> None:
    """Refuse a file binary from its start (a "bomb" of zeros) before it is expanded whole:
    :class:`DecodeError` for the first bytes (up to 64 KiB) that the file gives at once."""
    head = fh.peek(_HEAD_BYTES)[:_HEAD_BYTES]
    decode(head[:len(head) & ~1], raw=True)  # (even: UTF-16 is read by pairs)


def head_ok(data: bytes) -> bool:
    """Whether :func:`gunzip` finds the start of gzip ``data`` readable and text (it expands
    the first block alone)."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as fh:
            _check_head(fh)
    except (DecodeError, OSError, EOFError, zlib.error):
        return False
    return True


def _gunzip_start(data: bytes) -> bytes:
    """What a gzip stream that ends too early expands to, up to where it ends."""
    inflate = zlib.decompressobj(wbits=31)
    try:
        return inflate.decompress(data, MAX_EXPANDED_BYTES + 1)
    except zlib.error:
        return b""


class Unusual(Exception):
    """A gzip file that :func:`blocks` leaves to :func:`gunzip`: damaged, cut short, followed by
    other bytes than gzip members or zeros, or expanding past :data:`MAX_EXPANDED_BYTES`."""


def blocks(data: bytes, size: int = 1 << 20) -> Iterator[bytes]:
    """The expanded bytes of gzip ``data`` (one member or several), in blocks of at most
    ``size`` bytes as they are expanded, so that the first can be used before the last is made
    (87k abstracts: 120 MB expanded in ~0.6 s). Raises :class:`Unusual` where :func:`gunzip`
    would say something of the file (its reading gives the same bytes where it says nothing)."""
    inflate, pending, total = zlib.decompressobj(wbits=31), memoryview(data), 0
    while True:
        try:
            out = inflate.decompress(pending, size)
        except zlib.error as exc:
            raise Unusual(str(exc)) from None
        pending = inflate.unconsumed_tail
        total += len(out)
        if total > MAX_EXPANDED_BYTES:
            raise Unusual("too large")
        if out:
            yield out
        if inflate.eof:
            rest = inflate.unused_data
            if not rest.strip(b"\x00"):  # (gzip files may be padded with zeros)
                return
            if rest[:2] != b"\x1f\x8b":
                raise Unusual("not gzip after a member")
            inflate, pending = zlib.decompressobj(wbits=31), memoryview(rest)
        elif not out and not pending:
            raise Unusual("cut short")
