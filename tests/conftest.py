"""Shared fixtures: every test runs with a clean environment and its own data dir in tmp."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

# the data-layer and CLI tests' fixtures (seeds_copy, data_dir, library, run_cli, papertray...),
# and the fast-path tests' plain-synced data dir (plain)
pytest_plugins = ["tests.db_support", "tests.fast_paths_support"]


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path_factory) -> Iterator[None]:
    """No test reads the user's library, keys, colour settings or home folder, and each starts with
    the umask the tests were started with (the front ends set 077 as they start)."""
    # TMUX: a copy's notification says more inside tmux (the tests that want it set it)
    for name in ("PAPERTRAY_DATA_DIR", "PAPERTRAY_SEEDS", "PAPERTRAY_CONFIG_DIR", "NO_COLOR",
                 "TEXTUAL_THEME", "TMUX"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))  # keys.toml
    umask = os.umask(0o077)
    os.umask(umask)
    yield
    os.umask(umask)
