"""Helpers for the search tests: the shipped seeds read independently of db (to compare search
results with), the ids of papers they name, hypothesis settings, and one-file libraries."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, settings

from db.text import paper_id
from tests.db_support import SHIPPED_SEEDS

HYPOTHESIS = settings(max_examples=150, deadline=None,
                      suppress_health_check=[HealthCheck.function_scoped_fixture,
                                             HealthCheck.too_slow])


def _seed_papers() -> dict[str, str]:
    """id -> abstract, read straight from the shipped seed files (in seed order, no db parsing)."""
    papers: dict[str, str] = {}
    for file in sorted(SHIPPED_SEEDS.glob("*.txt")):
        for paragraph in re.split(r"\n\s*\n", file.read_text(encoding="utf-8").strip())[1:]:
            papers.setdefault(paper_id(paragraph), " ".join(paragraph.split()))
    return papers


SEED_PAPERS = _seed_papers()
SEED_ORDER = list(SEED_PAPERS)


def _containing(pattern: str) -> set[str]:
    return {pid for pid, text in SEED_PAPERS.items() if re.search(pattern, text, re.IGNORECASE)}


PARM, WUDI, S2_TRACK, C_3PO = ("0412d482992496cb", "655e745abdb86cb1", "34b4a2c162f59198",
                                "5df4ef8446b9d126")


def _one_file_library(tmp_path_factory, name: str, text: str):
    """A synced library of one seed file ``name``.txt holding ``text``; closed after the module."""
    from db import Library

    base = tmp_path_factory.mktemp(name)
    (base / "seeds").mkdir()
    (base / "seeds" / f"{name}.txt").write_text(text, encoding="utf-8")
    lib = Library([base / "seeds"], base / "data")
    lib.sync()
    return lib
