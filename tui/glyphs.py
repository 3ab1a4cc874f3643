"""The characters papertray draws for a status, shared by the command line and the browser: a
status is a shape, never colour alone, and plain ASCII where Unicode cannot be shown."""

from __future__ import annotations

import os
from collections.abc import Mapping

#: Mark glyphs, and the other characters papertray draws itself: ``sep`` between parts of a
#: line, ``more`` for "still loading" or "cut here", ``none`` for a count not known yet.
GLYPHS = {"new": "·", "to-read": "»", "read": "✓", "dismissed": "×", "sep": " · ", "more": "…",
          "none": "–"}
#: The same for terminals or locales that cannot show them, and under NO_COLOR and ``--ascii``.
ASCII_GLYPHS = {"new": ".", "to-read": ">", "read": "x", "dismissed": "-", "sep": " | ",
                "more": "...", "none": "-"}

_ASCII_TERMS = {"linux", "dumb", "vt100", "vt102", "vt220", "ansi", "cons25"}


def wants_ascii(environ: Mapping[str, str] | None = None) -> bool:
    """True when marks should be drawn in plain ASCII.

    That is when ``NO_COLOR`` is set, when ``TERM`` names a console whose fonts lack ``✓``
    (``linux``, ``vt100``...), or when the locale (``LC_ALL``, ``LC_CTYPE``, ``LANG``, first set
    wins) is not UTF-8, e.g. ``C`` or ``POSIX``.
    """
    env = os.environ if environ is None else environ
    if "NO_COLOR" in env or env.get("TERM", "") in _ASCII_TERMS:
        return True
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = env.get(name)
        if value:
            return "utf8" not in value.lower().replace("-", "")
    return False


def glyphs_for(ascii_only: bool) -> dict[str, str]:
    """The glyph table to use: :data:`ASCII_GLYPHS` or :data:`GLYPHS`."""
    return ASCII_GLYPHS if ascii_only else GLYPHS
