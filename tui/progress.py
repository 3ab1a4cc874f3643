"""The figures of a sync's progress, as both front ends show them beside their bar.

``41,210 of 87,409 papers · 3,862/s · 12 s left``: papers parsed of the total (the total is
estimated until the last seed file is parsed: :data:`db.index.sync.Progress`), the rate and the
time left at that rate.
"""

from __future__ import annotations

#: Seconds between the first count and the last from which the rate is theirs alone: the first
#: count comes after the parse workers started (~2 s in the browser), which is no parsing rate.
RATE_AFTER_S = 0.5


class ProgressFigures:
    """The figures line of one sync that started at ``started`` (monotonic seconds)."""

    def __init__(self, started: float) -> None:
        self.started = started
        self._first: tuple[float, int] | None = None  # (when, papers) of the first count

    def text(self, done: int, total: int, now: float) -> str:
        """``done`` of ``total`` papers at ``now``, the rate (papers a second: since the first
        count once that is :data:`RATE_AFTER_S` old, else since the start) and, while papers
        are left, the time left at that rate."""
        if self._first is None:
            self._first = (now, done)
        figures = f"{done:,} of {total:,} papers"
        since, papers = self._first
        if now - since >= RATE_AFTER_S and done > papers:
            rate = (done - papers) / (now - since)
        elif done > 0 and now > self.started:
            rate = done / (now - self.started)
        else:
            return figures
        figures += f" · {rate:,.0f}/s"
        if done >= total:
            return figures
        return f"{figures} · {time_left((total - done) / rate)} left"


def time_left(seconds: float) -> str:
    """``12 s``, ``3 min 05 s``: seconds rounded up, as a countdown reads."""
    whole = max(1, int(-(-seconds // 1)))
    if whole < 60:
        return f"{whole} s"
    return f"{whole // 60} min {whole % 60:02d} s"
