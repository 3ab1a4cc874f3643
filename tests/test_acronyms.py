"""Acronyms the abstracts define: mined at sync time (db.index.acronyms), and a short form and its
long form finding each other in a search (db.search.acronyms)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from db import Library
from db.index.acronyms import definitions
from tests.db_support import REPO, all_hits, copy_seeds

#: A seed file of precise cases: "PPO" defined by 2 papers (kept), "WGN" by 1 (dropped),
#: a paper with the long form alone, one with the short form alone, and "US", which 2 papers
#: define and 4 write as the word "us".
PRECISE = """Acronym Papers

We train agents with proximal policy optimization (PPO) and compare PPO with A2C on Atari.

Proximal Policy Optimization (PPO) is stable; we extend PPO to teams of cooperating robots.

The Widget Gadget Network (WGN) models sparse widgets, as shown before (see Fig. 2).

We revisit proximal policy optimization for robotic grasping under heavy occlusion.

A study of PPO clipping in continuous control, with results (2023) on locomotion (e.g. x).

Surveys of the United States (US) census show that trade with the US grew in every year.

We use census data of the United States (US) and of Canada to model migration flows.

This lets us compare two census methods on migration data without bias.

Experiments show us where migration models of census data fail most.

A census of migration tells us how trade and data relate across countries.

Our analysis helps us model migration with census microdata.
"""


def _sql(lib: Library, query: str, *params) -> list[tuple]:
    conn = sqlite3.connect(lib.paths.index)
    try:
        return conn.execute(query, params).fetchall()
    finally:
        conn.close()


@pytest.fixture
def precise(tmp_path: Path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "acronyms.txt").write_text(PRECISE, encoding="utf-8")
    lib = Library([seeds], tmp_path / "data")
    lib.sync()
    yield lib, seeds / "acronyms.txt"
    lib.close()


# -- mining -------------------------------------------------------------------------------------

def test_definitions_follow_schwartz_and_hearst():
    assert definitions("We use Proximal Policy Optimization (PPO) here.") == {
        ("ppo", "proximal policy optimization", "proximal policy optimization")}
    # the other way round; a plural short form is kept as its singular
    assert definitions("RLHF (reinforcement learning from human feedback) aligns.") == {
        ("rlhf", "reinforcement learning from human feedback",
         "reinforcement learning from human feedback")}
    assert definitions("Large Language Models (LLMs) are big.") == {
        ("llm", "large language models", "large language models")}
    # a hyphenated long form is its tokens; a word with an inner capital keeps its case
    assert definitions("self-supervised learning (SSL) on ImageNet Classification (INC)") == {
        ("ssl", "self supervised learning", "self supervised learning"),
        ("inc", "imagenet classification", "ImageNet classification")}
    for text in ("results (see Fig. 2) and", "as in (2023) we", "models (e.g. x) do",
                 "models (e.g. BERT) do", "a word (ours)", "the letter (A) here",
                 "a method (GPT-4) that", "(RLHF) at the start", "the same thing (STM)"):
        assert definitions(text) == set(), text


def test_the_shipped_seeds_define_three_acronyms_in_two_papers_or_more(library):
    assert _sql(library, "SELECT short, long, papers, share FROM acronyms") == [
        ("llm", "large language models", 8, 1.0), ("moe", "mixture of experts", 2, 1.0),
        ("rl", "reinforcement learning", 2, 1.0)]
    # every definition is kept with its paper, a one-off too ("CoT" in one abstract)
    assert ("cot", "chain of thought") in _sql(library, "SELECT short, long FROM paper_acronyms")
    assert _sql(library, "SELECT count(*) FROM paper_acronyms") == [(56,)]
    # each with the paper that defines it: the short form is in that paper's abstract
    assert _sql(library, "SELECT count(*) FROM paper_acronyms a JOIN papers p "
                         "ON p.rowid = a.paper WHERE instr(lower(p.abstract), a.short)") == [(56,)]


def test_a_pair_two_papers_define_is_kept_and_a_one_off_dropped(precise):
    lib, _ = precise
    assert _sql(lib, "SELECT short, long, papers FROM acronyms") == [
        ("ppo", "proximal policy optimization", 2), ("us", "united states", 2)]
    assert sorted(_sql(lib, "SELECT short, long FROM paper_acronyms")) == [
        ("ppo", "proximal policy optimization"), ("ppo", "proximal policy optimization"),
        ("us", "united states"), ("us", "united states"), ("wgn", "widget gadget network")]


def test_an_incremental_sync_mines_only_what_changed_and_forgets_what_left(precise):
    lib, seed = precise
    lib.sync(force=True)  # (made again from nothing: the same rows)
    before = _sql(lib, "SELECT paper, short FROM paper_acronyms WHERE short = 'us'")
    seed.write_text(PRECISE.replace(
        "Proximal Policy Optimization (PPO) is stable; we extend PPO to teams of cooperating "
        "robots.\n\n", ""), encoding="utf-8")
    assert lib.sync().removed == 1
    assert _sql(lib, "SELECT short, long, papers FROM acronyms") == [("us", "united states", 2)]
    assert _sql(lib, "SELECT count(*) FROM paper_acronyms WHERE short = 'ppo'") == [(1,)]
    # the papers that stayed were not mined again: their rows are the same
    assert _sql(lib, "SELECT paper, short FROM paper_acronyms WHERE short = 'us'") == before
    assert lib.search("PPO").notice == ""  # defined by one paper now: no expansion


# -- the query side ------------------------------------------------------------------------------

def test_a_short_form_also_finds_its_long_form(precise):
    lib, _ = precise
    for typed in ("PPO", "ppo"):
        result = lib.search(typed, limit=50)
        assert result.notice == "also searching proximal policy optimization for PPO"
        # the query as typed: run again it expands the same way (the notice names the form)
        assert result.effective_query == typed
        assert result.total == 4  # 3 write PPO, 1 only "proximal policy optimization"
    assert lib.search('"PPO"').total == 3  # quoted: only the papers that write PPO


def test_a_long_form_typed_as_words_also_finds_its_short_form(precise):
    lib, _ = precise
    result = lib.search("proximal policy optimization", limit=50)
    assert result.notice == "also searching PPO for proximal policy optimization"
    assert result.effective_query == "proximal policy optimization"
    assert lib.search(result.effective_query).total == result.total
    assert result.total == 4  # with the paper that writes only "PPO"
    assert lib.search('"proximal policy optimization"').total == 3
    assert lib.search('"proximal" "policy" "optimization"').total == 3


def test_either_form_finds_what_the_other_finds(tmp_path):
    """RLHF found 52 papers of the 87k corpus, its long form typed as words 121: the short
    form searched its long form as a phrase only. Each now finds the union."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    papers = ["We fine-tune with reinforcement learning from human feedback (RLHF) here.",
              "Reinforcement learning from human feedback (RLHF) aligns chat models.",
              "Our RLHF pipeline is cheap.",
              "Human feedback guides reinforcement learning of the policy in this work.",
              "Reinforcement learning alone, without any people involved."]
    (seeds / "rlhf.txt").write_text("RLHF\n\n" + "\n\n".join(papers) + "\n", encoding="utf-8")
    lib = Library([seeds], tmp_path / "data")
    lib.sync()
    short = {h.headline for h in all_hits(lib, "RLHF")}
    long = {h.headline for h in all_hits(lib, "reinforcement learning from human feedback")}
    assert short == long and len(short) == 4  # all but the last
    assert len(all_hits(lib, '"RLHF"')) == 3
    lib.close()


def test_an_excluded_short_form_excludes_both_forms(precise):
    lib, _ = precise
    result = lib.search("-PPO", limit=50)
    assert result.notice == "also excluding proximal policy optimization for -PPO"
    assert result.total == 11 - 4
    assert not {h.id for h in result.hits} & {h.id for h in all_hits(lib, "PPO")}


def test_a_short_form_written_in_lower_case_does_not_expand(precise):
    lib, _ = precise
    # two papers define "United States (US)", but the abstracts write "us" as a word
    result = lib.search("us", limit=50)
    assert (result.notice, result.effective_query, result.total) == ("", "us", 6)
    assert lib.search("united states").notice == ""


def test_the_shipped_seeds_find_rl_for_reinforcement_learning(shipped_library):
    rl = {h.id for h in all_hits(shipped_library, '"RL"')}
    long = {h.id for h in all_hits(shipped_library, '"reinforcement learning"')}
    assert {h.id for h in all_hits(shipped_library, "RL")} == rl | long
    assert {h.id for h in all_hits(shipped_library, "reinforcement learning")} >= rl | long
    assert shipped_library.search("mixture of experts").notice == (
        "also searching MoE for mixture of experts")


def test_a_three_letter_plural_and_a_repeat_expand_once(shipped_library):
    """"LMs" and "RLs" were not read as their singular (only plurals of 4 letters or more
    were), and "LLM LLM LLM" named the long form three times."""
    said = "also searching reinforcement learning for RL"
    assert shipped_library.search("RLs").notice == said
    assert shipped_library.search("RL RL RL").notice == said


# -- the benchmark -------------------------------------------------------------------------------

def test_the_acronym_benchmark_prints_its_table(tmp_path: Path):
    seeds = copy_seeds(tmp_path / "seeds")
    out = subprocess.run([sys.executable, str(REPO / "bench" / "acronyms.py"), str(seeds),
                          str(tmp_path / "data"), "--pairs", "30"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in out.splitlines()
            if line.startswith("| ") and not line.startswith("| short")]
    assert [r[:3] for r in rows] == [["llm", "large language models", "8"],
                                     ["moe", "mixture of experts", "2"],
                                     ["rl", "reinforcement learning", "2"],
                                     ["**all**", "", ""]]
    # short alone, long alone, both, union; recall of the union before → after
    assert rows[2][3:] == ["3", "8", "3", "8", "38% → 100%", "100% → 100%"]
    assert "search latency" in out


def test_a_pair_defined_twice_in_one_paper_keeps_the_same_spelling_in_any_order():
    """A title and its abstract may define one pair in two spellings ("DeepSpeed model
    training" and "deepspeed model training"): the spelling kept is the same whatever order the
    pairs come in (a set's order changes from one process to the next)."""
    from db.index.acronyms import ACRONYMS_DDL, track, write_found

    title = "Scaling DeepSpeed Model Training (DMT) for All"
    abstract = "We study deepspeed model training (DMT) at scale."
    pairs = sorted(definitions(title) | definitions(abstract))
    assert [(short, long) for short, long, _ in pairs] == [
        ("dmt", "deepspeed model training"), ("dmt", "deepspeed model training")]
    kept = set()
    for order in (pairs, pairs[::-1]):
        conn = sqlite3.connect(":memory:")
        conn.execute("CREATE TABLE papers (rowid INTEGER PRIMARY KEY)")
        conn.executescript(ACRONYMS_DDL)
        track(conn)
        write_found(conn, [(1, order)])
        kept |= {row for row in conn.execute("SELECT short, long, shown FROM paper_acronyms")}
    assert kept == {("dmt", "deepspeed model training", "DeepSpeed model training")}
