"""Seed files' bytes to text, whatever their encoding: UTF-8 or UTF-16 with or without a
byte-order mark, cp1252 or Latin-1; binary junk is told apart and refused.
"""

from __future__ import annotations

from db.text import _CONTROL_RE, clean


class DecodeError(ValueError):
    """The bytes are not text (binary junk); the message says why in a few words."""


def decode(data: bytes, raw: bool = False) -> str:
    """Decode a seed file's bytes to text with ``\\n`` line endings and no control characters
    (with ``raw``, controls and tabs are kept: a TSV file's fields are split by tabs).

    Order: UTF-8 with BOM, UTF-16 with BOM, UTF-16 without one (told by its NUL bytes), UTF-8,
    then cp1252 (Latin-1 for its five undefined bytes). Raises :class:`DecodeError` when the
    bytes look binary: more than 10% of the decoded characters are controls, or more than 1% of
    the bytes are NUL and they are not UTF-16 (a real text file has none).
    """
    if data.startswith(b"\xef\xbb\xbf"):
        text = data[3:].decode("utf-8", errors="replace")
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data.decode("utf-16", errors="replace")
    else:
        if data and data.count(0) > max(1, len(data) // 100):
            text = _utf16_without_bom(data)
            if text is None:
                raise DecodeError("binary data (NUL bytes), not text")
        else:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = _cp1252_or_latin1(data)
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    if text:
        junk = len(_CONTROL_RE.findall(text)) + text.count("\ufffd")
        if junk > len(text) * 0.10:
            raise DecodeError("binary data, not text")
    return text if raw else clean(text)


def _utf16_without_bom(data: bytes) -> str | None:
    """UTF-16 text that has no byte-order mark, told by its NUL bytes: in Latin text the high
    byte of (nearly) every character is NUL, so half the bytes or more on one side (odd bytes:
    little-endian) are NUL and hardly any on the other. None when the bytes are not that."""
    if len(data) % 2:
        return None
    half = len(data) // 2
    even, odd = data[0::2].count(0), data[1::2].count(0)
    for nuls, others, codec in ((odd, even, "utf-16-le"), (even, odd, "utf-16-be")):
        if nuls >= half // 2 and others <= half // 100:
            try:
                return data.decode(codec)
            except UnicodeDecodeError:
                return None
    return None


def _cp1252_or_latin1(data: bytes) -> str:
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")
