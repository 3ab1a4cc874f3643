"""The command line fuzzed: random command lines of real commands, options and hostile values.

Each run of ``papertray --seeds S --data-dir D ARGS`` (the console script's ``main()``, in this
process, its working folder a temporary one) exits 0, 1 or 2, never with a traceback, and a
failure says why in one line. The library and its marks carry over from one command line to
the next, as a user's do. ``scripts/fuzz.py --only cli`` runs the same for as long as asked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given

from tests.fuzz_support import check_cli, command_lines, in_the_suite


@in_the_suite(300)
@given(command_lines())
def test_any_command_line_exits_0_1_or_2_with_one_line_of_error(
        seeds_copy: Path, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        argv: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    check_cli(["--seeds", str(seeds_copy), "--data-dir", str(data_dir)], argv)
