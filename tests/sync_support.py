"""Helpers for the sync tests: a sync report's counts, and a seed file's paragraphs to edit."""

from __future__ import annotations

import pathlib


def _counts(report) -> tuple[int, int, int, int]:
    return report.papers, report.added, report.removed, report.changed


def _paragraphs(path: pathlib.Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n\n")


def _write_paragraphs(path: pathlib.Path, paragraphs: list[str]) -> None:
    path.write_text("\n\n".join(paragraphs), encoding="utf-8")
