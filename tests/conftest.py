"""Shared fixtures: every test runs with a clean environment and its own data dir in tmp."""

from __future__ import annotations

import pytest

# the data-layer and CLI tests' fixtures (seeds_copy, data_dir, library, run_cli, papertray...),
# and the fast-path tests' plain-synced data dir (plain)
pytest_plugins = ["tests.db_support", "tests.fast_paths_support"]


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path_factory) -> None:
    """No test reads the user's library, colour settings or home folder."""
    for name in ("PAPERTRAY_DATA_DIR", "PAPERTRAY_SEEDS", "NO_COLOR", "TEXTUAL_THEME"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
