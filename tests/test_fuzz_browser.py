"""The browser fuzzed: random programs of keys, pastes, the mouse, resizes, screens, seed-file
changes and signals, run in the real app on a real library (``tests/fuzz_browser_support.py``
says what a program is and what is checked after each step).

The suite runs a fixed set of programs (the same every run); ``scripts/fuzz.py --only browser``
runs new ones for as long as asked and prints a failing program, shrunk.
"""

from __future__ import annotations

from hypothesis import given

from tests.fuzz_browser_support import Step, check_program, programs
from tests.fuzz_support import in_the_suite


@in_the_suite(12)
@given(programs())
def test_any_program_keeps_the_screen_true_to_the_files_and_exits_0(program: list[Step]) -> None:
    check_program(program)
