"""The one error a user can cause or fix, below every other module of the data layer."""

from __future__ import annotations


class LibraryError(Exception):
    """A problem a user can cause or fix (unknown id, unreadable data dir, bad status...).

    The message is one line that says what to do; front ends print it as it is.
    """
