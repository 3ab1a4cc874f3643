"""gzip-compressed seed files expanded, with a guard against a "zip bomb" and the complete lines
of a JSON Lines file cut short (a download stopped mid-stream).
"""

from __future__ import annotations

import gzip
import io
import zlib

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
            # binary from its start (a "bomb" of zeros): refused before it is expanded whole
            head = fh.peek(_HEAD_BYTES)[:_HEAD_BYTES]
            decode(head[:len(head) & ~1], raw=True)  # (even: UTF-16 is read by pairs)
            out = fh.read(MAX_EXPANDED_BYTES + 1)
    except DecodeError as exc:
        raise SeedError("error", str(exc)) from None
    except (OSError, EOFError) as exc:
        out = _gunzip_start(data) if lines and isinstance(exc, EOFError) else b""
        if b"\n" not in out:
            raise SeedError("error", f"not a readable gzip file ({exc})") from None
        out = out[:out.rindex(b"\n") + 1]
        read = out.count(b"\n")
        note = f"the gzip file is cut short: its first {read} lines read"
    if len(out) > MAX_EXPANDED_BYTES:
        raise SeedError("error", f"expands to more than {MAX_EXPANDED_BYTES >> 20} MiB")
    return out, note


def _gunzip_start(data: bytes) -> bytes:
    """What a gzip stream that ends too early expands to, up to where it ends."""
    inflate = zlib.decompressobj(wbits=31)
    try:
        return inflate.decompress(data, MAX_EXPANDED_BYTES + 1)
    except zlib.error:
        return b""
