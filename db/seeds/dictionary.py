"""The English dictionary that parsing asks whether a word is a real word (pyspellchecker's list),
kept as a plain word list beside the index so that a sync does not build it again each time.
"""

from __future__ import annotations

import contextlib
import os
from functools import lru_cache
from pathlib import Path

from db.store.files import make_private

#: Folder where the dictionary is kept as a word list (set by :func:`cache_dictionary_in`).
_dictionary_folder: Path | None = None


def cache_dictionary_in(folder: Path) -> None:
    """Keep a copy of the English dictionary as a plain word list in ``folder`` (1.7 MB).

    Building it from pyspellchecker's gzipped JSON takes 0.3-0.7 s, which a sync that re-parses
    one edited seed file would pay every time; reading the list back takes ~0.03 s.
    """
    global _dictionary_folder
    _dictionary_folder = folder


@lru_cache(maxsize=1)
def _dictionary() -> frozenset[str]:
    import importlib.util

    spec = importlib.util.find_spec("spellchecker")
    source = Path(spec.origin).parent / "resources" / "en.json.gz"  # type: ignore[union-attr]
    copy = None
    if _dictionary_folder is not None:
        try:  # named after the data it was built from: another pyspellchecker, another list
            st = source.stat()
            copy = _dictionary_folder / f"dictionary-{st.st_size}-{st.st_mtime_ns}.words"
            kept = frozenset(copy.read_text(encoding="utf-8").split("\n"))
            if len(kept) > 10_000:  # anything shorter was damaged: build it again
                make_private(copy)  # a list an older papertray left readable by all
                return kept
        except (OSError, UnicodeDecodeError):
            pass
    from spellchecker import SpellChecker  # only needed while parsing

    words = frozenset(SpellChecker(distance=1).word_frequency.keys())
    if copy is not None:
        partial = copy.with_suffix(".partial")
        try:  # a cache: a read-only folder only costs time
            partial.write_text("\n".join(sorted(words)), encoding="utf-8")
            os.replace(partial, copy)
        except OSError:  # a full disk: what was written is not left to take the marks' room
            with contextlib.suppress(OSError):
                partial.unlink()
    return words


def warm_up() -> None:
    """Load what parsing needs (the derive module, the dictionary) now rather than at the first
    abstract: worker processes forked afterwards share it."""
    import db.seeds.derive  # noqa: F401

    _dictionary()


def is_english_word(word: str) -> bool:
    """True when ``word`` (lower case) is in pyspellchecker's English dictionary."""
    return word in _dictionary()
