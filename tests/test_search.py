"""Search: every query is safe, phrases and filters find exactly what they should, ranking puts
the paper that introduces a name first, and no text typed by a user raises."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from db.search import rerank as rank
from db.search.highlight import match_spans
from db.search.query import parse
from db.text import paper_id
from tests.db_support import FILE_B, QUERIES, SHIPPED_SEEDS, all_hits, ids

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


def test_the_independent_reading_agrees_on_35_papers(shipped_library):
    assert len(SEED_PAPERS) == 35
    assert ids(all_hits(shipped_library)) == SEED_ORDER


@pytest.mark.parametrize("query", QUERIES)
def test_every_query_returns_normally(shipped_library, query):
    for typing in (False, True):
        result = shipped_library.search(query, typing=typing)
        assert result.total >= len(result.hits)
        assert "syntax error" not in result.notice and "no such column" not in result.notice
        assert result.query == query
        scores = [h.score for h in result.hits]
        assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("query", QUERIES)
def test_every_query_through_the_cli(run_cli, query):
    out = run_cli("search", query, "--json", "--limit", "100")
    assert out.exit_code == 0, out.stderr
    assert "Traceback" not in out.stderr
    data = out.json()
    assert set(data) == {"query", "effective_query", "notice", "total", "hits"}
    assert data["query"] == query
    assert data["total"] == len(data["hits"])


@pytest.mark.parametrize(("query", "pattern"), [
    ("state-of-the-art", r"state-of-the-art"),
    ("multi-task", r"multi-task"),
    # porter stems "models" to "model"; "Large Lan- guage Models" is repaired PDF hyphenation
    ('"large language models"', r"large lan(- )?guage models?"),
    ("transform*", r"\btransform"),
    ("Craftium OR DipLLM", r"craftium|dipllm"),
])
def test_phrases_find_exactly_the_papers_containing_them(shipped_library, query, pattern):
    expected = _containing(pattern)
    for typing in (False, True):
        result = shipped_library.search(query, limit=100, typing=typing)
        assert set(ids(result.hits)) == expected
        assert result.total == len(expected)
        assert result.notice == ""


def test_phrase_counts(shipped_library):
    assert len(_containing("state-of-the-art")) == 9
    assert len(_containing("multi-task")) == 6
    assert shipped_library.search("state-of-the-art").effective_query == '"state of the art"'


def test_phrases_through_the_cli(run_cli):
    for query, pattern in (("state-of-the-art", "state-of-the-art"), ("multi-task", "multi-task")):
        data = run_cli("search", query, "--json", "--limit", "100").json()
        assert {h["id"] for h in data["hits"]} == _containing(pattern)


def test_misspelt_words_are_corrected_and_said(shipped_library):
    result = shipped_library.search("reinforcment lerning", limit=100)
    assert result.effective_query == "reinforcement learning"
    assert result.notice == "corrected reinforcment → reinforcement, lerning → learning"
    assert set(ids(result.hits)) == _containing("reinforcement learning")
    assert [h.name for h in result.hits if h.name] == [
        "LMRL-Gym", "MENTOR", "Craftium", "C-3PO", "M3DT", "BATI", "SDQC"]
    assert result.total == 8


PARM, WUDI, S2_TRACK, C_3PO = ("0412d482992496cb", "655e745abdb86cb1", "34b4a2c162f59198",
                                "5df4ef8446b9d126")


@pytest.mark.parametrize(("query", "name"), [
    ("PARM", "PARM"), ("parm", "PARM"), ("wudi", "WUDI-Merging"), ("s2 track", "S2-Track"),
    ("S2-Track", "S2-Track"), ("craftium", "Craftium"), ("dipllm", "DipLLM"),
    ("LMRL-Gym", "LMRL-Gym"), ("hc-smoe", "HC-SMoE"), ("c3po", "C-3PO"), ("C-3PO", "C-3PO"),
    ("WUDI merging", "WUDI-Merging"), ("s2track", "S2-Track"), ("lmrlgym", "LMRL-Gym"),
])
def test_the_paper_that_introduces_a_name_ranks_first(shipped_library, query, name):
    for typing in (False, True):
        assert shipped_library.search(query, typing=typing).hits[0].name == name


@pytest.mark.parametrize(("query", "first", "effective", "notice"), [
    ("c3po", C_3PO, '"c 3po"', ""),            # a name typed without its punctuation
    ("wudimerging", WUDI, '"wudi merging"', ""),
    ("s2track", S2_TRACK, '"s2 track"', ""),
    ("parm", PARM, "parm", ""),
    ("preference alignment test time", PARM, "preference alignment test time", ""),
    ("diplomcy", "c6cf5bde67efacf4", "diplomacy", "corrected diplomcy → diplomacy"),
    ("multi-tsk", "a38c128b7bbe8ffd", '"multi task"', "corrected tsk → task"),
    ("PARM test-time alignmnt", PARM, 'parm "test time" alignment',
     "corrected alignmnt → alignment"),
    # words run together find the hyphenated words of the abstracts (the same hits)
    ("multitask", "a38c128b7bbe8ffd", '"multi task"', "corrected multitask → multi-task"),
    ("multiobjective bayesian", "6b971365fa1cdc0e", '"multi objective" bayesian',
     "corrected multiobjective → multi-objective"),
])
def test_constructs_find_the_paper_meant(shipped_library, query, first, effective, notice):
    result = shipped_library.search(query)
    assert (result.hits[0].id, result.effective_query, result.notice) == (
        first, effective, notice)


@pytest.mark.parametrize(("joined", "hyphenated"), [
    ("multitask", "multi-task"), ("realworld", "real-world"), ("lowrank", "low-rank"),
    ("testtime", "test-time"), ("multiagent", "multi-agent")])
def test_words_run_together_find_what_the_hyphenated_words_find(shipped_library, joined,
                                                                  hyphenated):
    for typing in (False, True):  # typed to its end in the browser, the last part is a prefix
        found = shipped_library.search(joined, typing=typing)
        assert found.total > 0
        assert ids(found.hits) == ids(shipped_library.search(hyphenated, typing=typing).hits)


@pytest.mark.parametrize(("query", "effective", "pattern"), [
    # one paper writes "finetuning", four "fine-tuning": each spelling finds all five
    ("finetuning", 'finetuning OR "fine tuning"', r"\bfine-?tuning\b"),
    ("pretrained", 'pretrained OR "pre trained"', r"\bpre-?trained\b"),
    ("pre-trained", '"pre trained" OR pretrained', r"\bpre-?trained\b"),
    ("fine-tuning", '"fine tuning"', r"\bfine-tuning\b"),  # one paper is too few to add
    ("understanding", "understanding", r"\bunderstanding\b"),  # no "under standing" here
])
def test_a_compound_also_finds_its_other_spelling(shipped_library, query, effective, pattern):
    found = shipped_library.search(query)
    assert found.effective_query == effective
    assert set(ids(all_hits(shipped_library, query))) == _containing(pattern)
    # and excluding it excludes every spelling
    assert not set(ids(all_hits(shipped_library, "-" + query))) & _containing(pattern)


@pytest.mark.parametrize(("query", "effective", "pattern"), [
    # the stemmer keeps "matrix" and "matrices" apart; one paper has both, one only "matrix"
    ("matrices", "matrices OR matrix", r"\bmatri(x|ces)\b"),
    ("matrix", "matrix OR matrices", r"\bmatri(x|ces)\b"),
    ("matrix OR matrices", "matrix OR matrices", r"\bmatri(x|ces)\b"),  # reads as typed
    # a form no paper has is the other one, not a correction to another word ("optimal")
    ("optima", "optimum", r"\boptim(um|a)\b"),
    ("analyses", "analysis", r"\banalys[ie]s\b"),
])
def test_an_irregular_plural_finds_its_singular_and_the_other_way_round(
        shipped_library, query, effective, pattern):
    found = shipped_library.search(query)
    assert (found.effective_query, found.notice) == (effective, "")
    assert set(ids(all_hits(shipped_library, query))) == _containing(pattern)
    # excluding one form excludes both, and the words to highlight hold both forms
    assert not set(ids(all_hits(shipped_library, "-" + query.split()[0]))) & _containing(pattern)


def test_an_excluded_irregular_plural_reads_back_as_typed(shipped_library):
    assert shipped_library.search("-matrix").effective_query == "-matrix -matrices"
    assert shipped_library.search("-matrix -matrices").effective_query == "-matrix -matrices"
    assert shipped_library.search("matrices").terms == ("matrices", "matrix")


def test_a_word_being_typed_finds_its_other_number_too(shipped_library):
    # the browser searches as each key is typed: the last word is a prefix, and stays one
    found = shipped_library.search("matrices", typing=True)
    assert (found.effective_query, found.terms) == ("matrices* OR matrix", ("matrices*", "matrix"))
    assert set(ids(all_hits(shipped_library, "matrices"))) == _containing(r"\bmatri(x|ces)\b")
    assert ids(found.hits) == ids(shipped_library.search("matrices").hits)


def test_a_word_being_typed_counts_once_however_many_words_it_completes_to(shipped_library):
    # "adapti" completes to adapting, adaptive, adaptively: one stem in the index ("adapt"),
    # searched three times it counted three times in bm25; its hits and their scores are now
    # those of the whole word typed
    typed = shipped_library.search("adapti", typing=True)
    whole = shipped_library.search("adaptive")
    assert typed.total == whole.total > 1
    assert [(h.id, round(h.score, 9)) for h in typed.hits] == [
        (h.id, round(h.score, 9)) for h in whole.hits]


def test_a_whole_word_still_being_typed_counts_once(shipped_library):
    # FTS5 stems a prefix as well: "adaptive"* is "adapt"*, which matches "adaptively" (stem
    # "adapt") already; searched as a completion too it counted twice, and a paper's score
    # doubled the moment its word was typed in full
    typed = shipped_library.search("adaptive", typing=True)
    whole = shipped_library.search("adaptive")
    assert "adaptively" not in typed.effective_query
    assert typed.total == whole.total > 1
    assert [(h.id, round(h.score, 9)) for h in typed.hits] == [
        (h.id, round(h.score, 9)) for h in whole.hits]


def test_a_longer_query_keeps_the_number_typed_unless_no_paper_has_it(shipped_library):
    # a title remembered: the form typed is the paper's own (db.search.rewrite.PLURAL_TERMS)
    found = shipped_library.search("low rank matrix completion")
    assert found.effective_query == "low rank matrix completion"
    assert shipped_library.search("local optima of deep networks").effective_query == (
        "local optimum of deep networks")


def test_the_words_to_highlight_include_corrections_and_the_prefix(shipped_library):
    assert shipped_library.search("reinforcment lerning").terms == ("reinforcement", "learning")
    assert shipped_library.search("state-of-the-art transfor", typing=True).terms == (
        "state", "of", "the", "art", "transfor*")
    assert shipped_library.search("c3po").terms == ("c", "3po")


@pytest.mark.parametrize("typed", ["adapti", "adaptive"])
def test_every_paper_a_word_being_typed_finds_shows_what_it_matched(shipped_library, typed):
    # PARM is found by its "adapt" and "Low-Rank Adaptation" (stem "adapt"): through the
    # completion "adapting" of "adapti", and through "adaptive"*, which FTS5 searches as
    # "adapt"*; neither "adapti*" nor "adaptive*" begins them, so nothing was highlighted
    result = shipped_library.search(typed, typing=True, limit=50)
    assert result.total == 9
    for hit in result.hits:
        text = shipped_library.get(hit.id).abstract_source
        assert match_spans(text, result.terms), hit.name
    parm = next(h for h in result.hits if h.name == "PARM")
    text = shipped_library.get(parm.id).abstract_source
    assert {text[a:b] for a, b in match_spans(text, result.terms)} == {"adapt", "Adaptation"}


def test_snippets_mark_what_matched(shipped_library):
    result = shipped_library.search("c3po")
    snippet = shipped_library.snippets([C_3PO, "0" * 16], result.terms)
    assert list(snippet) == [C_3PO]
    assert "we propose **C-3PO**, a proxy-centric framework" in snippet[C_3PO]


def test_search_snippet_through_the_cli(run_cli):
    out = run_cli("search", "reinforcment", "lerning", "--limit", "1", "--snippet")
    lines = out.stdout.splitlines()
    assert lines[0].startswith("88f8a6f8  ·  LMRL-Gym")
    assert "**Reinforcement learning** has the potential" in lines[1]
    data = run_cli("search", "c3po", "--snippet", "--json").json()
    assert [h["name"] for h in data["hits"]] == ["C-3PO"]
    assert "**C-3PO**" in data["hits"][0]["snippet"]
    assert "snippet" not in run_cli("search", "c3po", "--json").json()["hits"][0]


def test_a_name_outweighs_the_same_word_in_abstracts(shipped_library):
    hits = shipped_library.search("merging", limit=100).hits
    assert hits[0].name == "WUDI-Merging"
    assert len(hits) > 1 and hits[0].score > hits[1].score


@pytest.mark.parametrize("query", ["", "   ", '"', "*", "-", '""', "- * \"", "\t\n"])
def test_empty_queries_list_everything_in_seed_order(shipped_library, query):
    result = shipped_library.search(query, limit=100)
    assert ids(result.hits) == SEED_ORDER
    assert (result.total, result.notice, result.effective_query) == (35, "", "")
    assert {h.score for h in result.hits} == {0.0}


def test_operators_out_of_place_are_plain_words(shipped_library):
    not_transformer = shipped_library.search("NOT transformer", limit=100)
    assert not_transformer.effective_query == "not transformer"
    assert set(ids(not_transformer.hits)) == {
        pid for pid, text in SEED_PAPERS.items()
        if re.search(r"\bnot\b", text, re.I) and re.search(r"\btransformer\b", text, re.I)}
    assert [h.name for h in not_transformer.hits] == ["M3DT"]
    lone_or = shipped_library.search("OR", limit=100)
    assert lone_or.effective_query == "or"
    assert set(ids(lone_or.hits)) == _containing(r"\bor\b")
    assert shipped_library.search("AND").effective_query == "and"


def test_unsafe_characters_are_text(shipped_library):
    cls = shipped_library.search("[CLS]")
    assert (cls.effective_query, cls.total) == ("cls", 0)
    assert shipped_library.search("c++").effective_query == "c"
    assert shipped_library.search('foo"bar').effective_query == '"foo bar"'
    assert shipped_library.search("arXiv:2101.00001").effective_query == '"arxiv 2101 00001"'


def test_exclusion(shipped_library):
    result = shipped_library.search("multi-task -reinforcement", limit=100)
    assert set(ids(result.hits)) == _containing("multi-task") - _containing("reinforcement")
    assert result.total == 5
    assert shipped_library.search('multi-task -"reinforcement learning"').total == 5


def test_too_few_hits_fall_back_to_partial_matches(shipped_library):
    result = shipped_library.search("diplomacy tensor", limit=100)
    assert result.notice == "no paper has all 2 words; showing best partial matches"
    assert {h.name for h in result.hits} == {"DipLLM", "LoRT"}


def test_a_handful_of_hits_in_a_big_library_also_ranks_partial_matches(shipped_library,
                                                                      monkeypatch):
    """In a library of 1,000 papers or more, fewer than 5 papers with every word is too few."""
    monkeypatch.setattr(rank, "SMALL_LIBRARY", 10)
    result = shipped_library.search("preference alignment test time", limit=100)
    assert result.notice == "only 1 paper has all 4 words; showing best partial matches"
    assert result.hits[0].id == PARM
    assert result.total > 1
    test_time = shipped_library.search("test-time", limit=100)  # one phrase: nothing to relax
    assert (test_time.notice, test_time.total) == ("", len(_containing("test-time")))
    assert 0 < test_time.total < rank.HANDFUL


def test_exclusion_and_filters_never_trigger_the_fallback(shipped_library):
    """An exclusion that removes every hit must not bring in papers the words alone never had."""
    assert shipped_library.search("multi task learning -multi").total == 0
    assert shipped_library.search("multi task learning is:read").total == 0


def test_the_last_word_is_a_prefix_while_typing(shipped_library):
    typed = shipped_library.search("transfor", typing=True, limit=100)
    assert set(ids(typed.hits)) == _containing(r"\btransfor")
    assert typed.effective_query == "transfor*"
    # a trailing space ends the word: "transfor" is then a word in no paper, and corrected
    assert shipped_library.search("transfor ", typing=True).effective_query == "transfer"
    assert shipped_library.search("transfor", typing=False).effective_query != "transfor*"


@pytest.mark.parametrize("typed", ["reinforcem", "reinforceme", "reinforcemen", "reinforcement"])
def test_a_prefix_finds_the_words_it_begins_though_the_index_holds_their_stems(
        shipped_library, typed):
    """The index stores Porter stems ("reinforc"): the prefix "reinforcem" alone matches none
    of them, so each prefix also matches the words of the vocabulary it begins."""
    expected = set(ids(all_hits(shipped_library, "reinforcement")))
    assert len(expected) == len(_containing(r"\breinforcement"))
    assert set(ids(all_hits(shipped_library, typed, typing=True))) == expected
    assert set(ids(all_hits(shipped_library, typed + "*"))) == expected


@pytest.mark.parametrize("typed", ["multi-objecti", "multi-objectiv", "multi-objective"])
def test_a_hyphenated_word_being_typed_finds_the_words_its_last_part_begins(shipped_library, typed):
    """"multi-objectiv" is the phrase "multi objectiv" with its last word a prefix: the index
    holds "object" (the Porter stem of "objective"), which "objectiv" does not begin, so the
    phrase also matches the whole words that last part begins, as a single word does."""
    expected = set(ids(all_hits(shipped_library, "multi-objective")))
    assert expected == _containing(r"\bmulti-objective")
    assert set(ids(all_hits(shipped_library, typed, typing=True))) == expected
    assert set(ids(all_hits(shipped_library, "-" + typed + "*"))) == set(SEED_ORDER) - expected


@pytest.mark.parametrize("excluded", ["-reinforcem*", "-reinforceme*", "-reinforcement*"])
def test_an_excluded_prefix_drops_the_words_it_begins_as_the_prefix_finds_them(
        shipped_library, excluded):
    """"-reinforcem*" must drop exactly the papers "reinforcem*" finds: the prefix alone
    matches no Porter stem ("reinforc"), so the exclusion, too, needs the words it begins."""
    found = set(ids(all_hits(shipped_library, excluded[1:])))
    assert found == _containing(r"\breinforcement")
    assert set(ids(all_hits(shipped_library, excluded))) == set(SEED_ORDER) - found


@pytest.mark.parametrize(("typed", "word"), [("minecraft diffusi", "diffusion"),
                                              ("tensor reinforcem", "reinforcement")])
def test_best_partial_matches_while_typing_include_the_words_the_prefix_begins(
        shipped_library, typed, word):
    """No paper has both words, so the best partial matches are ranked: the papers of the word
    being typed are among them, though its Porter stem ("diffus") does not begin with it."""
    result = shipped_library.search(typed, typing=True, limit=100)
    assert "partial matches" in result.notice
    assert set(ids(all_hits(shipped_library, word))) <= set(ids(result.hits))


@pytest.mark.parametrize("typed", ["rl", "3d", "ai"])
def test_a_word_of_two_letters_being_typed_is_a_word_not_a_prefix(shipped_library, typed):
    """A one- or two-letter prefix would match nearly every paper (and take the longest to
    rank); as a word it is what people mean: "rl", "3d"."""
    result = shipped_library.search(typed, typing=True, limit=100)
    assert result.effective_query == typed
    assert ids(result.hits) == ids(shipped_library.search(typed, limit=100).hits)
    assert result.total >= 1


def test_status_filters(library):
    by_name = {h.name: h.id for h in all_hits(library) if h.name}
    library.set_status([by_name["PARM"], by_name["MCU"]], "to-read")
    library.set_status([by_name["LoRT"]], "read")
    everything = ids(all_hits(library))
    assert ids(library.search("is:to-read").hits) == [by_name["PARM"], by_name["MCU"]]
    assert ids(library.search("is:read").hits) == [by_name["LoRT"]]
    new = library.search("is:new", limit=100)
    assert ids(new.hits) == [
        i for i in everything if i not in (by_name["PARM"], by_name["MCU"], by_name["LoRT"])]
    assert ids(library.search("", status="to-read").hits) == [by_name["PARM"], by_name["MCU"]]
    to_read = {by_name["PARM"], by_name["MCU"]}
    aligned = set(ids(library.search("alignment is:to-read").hits))
    assert aligned == to_read & _containing(r"\balign")
    assert ids(library.search("minecraft is:to-read").hits) == [by_name["MCU"]]
    assert [h.status for h in library.search("PARM").hits] == ["to-read"]
    assert library.search("is:toread").total == 2 and library.search("is:unread").total == 32


def test_other_filters(shipped_library):
    code = shipped_library.search("has:code", limit=100)
    assert [h.name or h.short_id for h in code.hits] == [
        "PARM", "WUDI-Merging", "MTL-UE", "MENTOR", "1c07dcbf", "HC-SMoE", "MCU", "PHN-HVVS",
        "ELoRA"]
    second = shipped_library.search("in:002", limit=100)
    assert ids(second.hits) == [i for i in SEED_ORDER if i in {
        paper_id(p) for p in re.split(r"\n\s*\n", (SHIPPED_SEEDS / "002_877e65d5360e0aa3.txt")
                                      .read_text(encoding="utf-8").strip())[1:]}]
    assert second.total == 19
    assert shipped_library.search("in:icml", limit=100).total == 35
    bogus = shipped_library.search("is:bogus", limit=100)
    assert (bogus.total, bogus.notice) == (
        35, "unknown filter is:bogus ignored (use is:new, is:to-read, is:read)")


def test_pages(shipped_library):
    page = shipped_library.search("", limit=10, offset=30)
    assert (ids(page.hits), page.total) == (SEED_ORDER[30:], 35)
    assert shipped_library.search("", limit=0).hits == []
    assert shipped_library.search("", limit=5, offset=1000).hits == []
    assert ids(shipped_library.search("learning", limit=3, offset=2).hits) == ids(
        shipped_library.search("learning", limit=100).hits)[2:5]


def _one_word(word: str) -> bool:
    """A word that stays one excluded word: no quote or space, even after NFKC ("´" is " ́")."""
    normal = unicodedata.normalize("NFKC", word)
    return '"' not in normal and not any(ch.isspace() for ch in normal)


WORDS = ["learning", "model", "multi-task", "graph", "tensor", "language", "reinforcement",
         "policy", "state-of-the-art", "data", "transform*", '"large language"', "OR", "NOT",
         "reinforcment", "diplomacy", "c3po", "alignmnt", "preference", "test-time"]


@HYPOTHESIS
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join),
       st.one_of(st.sampled_from([*WORDS, "zzqx", "the", "a"]),
                 st.text(st.characters(categories=["L", "N", "P", "S"]), min_size=1, max_size=8)
                 .filter(_one_word)))
def test_excluding_a_word_never_adds_hits(shipped_library, query, word):
    """``-word`` only removes hits (the fallback to partial matches never adds any back)."""
    plain = set(ids(shipped_library.search(query, limit=10_000).hits))
    without = set(ids(shipped_library.search(f"{query} -{word}", limit=10_000).hits))
    assert without <= plain


@HYPOTHESIS
@given(st.lists(st.sampled_from(WORDS), min_size=2, max_size=5).map(" ".join),
       st.sampled_from([*WORDS, "is:read", "-is:new", "has:code", "in:002"]))
def test_exclusions_and_filters_never_add_partial_matches(shipped_library, monkeypatch, query,
                                                          word):
    """As in a big library, where a handful of hits already brings in partial matches."""
    monkeypatch.setattr(rank, "SMALL_LIBRARY", 10)
    plain = set(ids(shipped_library.search(query, limit=10_000).hits))
    extra = word if word.startswith(("is:", "-is:", "has:", "in:")) else f"-{word}"
    assert set(ids(shipped_library.search(f"{query} {extra}", limit=10_000).hits)) <= plain


@HYPOTHESIS
@given(st.text(max_size=60))
def test_random_text_never_raises(shipped_library, text):
    for typing in (False, True):
        result = shipped_library.search(text, limit=20, typing=typing)
        assert len(result.hits) <= 20
        assert result.total >= len(result.hits)


@HYPOTHESIS
@given(st.lists(st.sampled_from(['"', "-", "*", "OR", "NOT", "is:", "in:", "has:", "(", ")",
                                 ":", "^", "NEAR", "AND", "'", "\\", "graph", "\x00", "%", "_"]),
                max_size=12).map("".join))
def test_operator_soup_never_raises(shipped_library, text):
    shipped_library.search(text, typing=True)
    shipped_library.search(text.replace("", " "))


def test_filters_with_a_dash_exclude(library):
    everyone = {h.id for h in all_hits(library)}
    with_code = {h.id for h in all_hits(library, "has:code")}
    assert len(with_code) == 9
    assert {h.id for h in all_hits(library, "-has:code")} == everyone - with_code
    first = sorted(everyone)[0]
    library.set_status([first], "read")
    assert {h.id for h in all_hits(library, "-is:read")} == everyone - {first}
    assert library.search("-is:read").effective_query == "-is:read"
    only_b = {h.id for h in all_hits(library, f"in:{FILE_B[:3]}")}
    assert {h.id for h in all_hits(library, f"-in:{FILE_B[:3]}")} == everyone - only_b


UNICODE_SEED = """Unicode Papers

We fine-tune GPT-4 on scientific abstracts and compare it with smaller models.

A cafe\u0301 recommender (decomposed accent) learns from orders placed at the counter.

Мы предлагаем нейронные сети для распознавания речи на русском языке.

本文提出了一种图神经网络方法，用于分子性质预测。
"""


def _one_file_library(tmp_path_factory, name: str, text: str):
    """A synced library of one seed file ``name``.txt holding ``text``; closed after the module."""
    from db import Library

    base = tmp_path_factory.mktemp(name)
    (base / "seeds").mkdir()
    (base / "seeds" / f"{name}.txt").write_text(text, encoding="utf-8")
    lib = Library([base / "seeds"], base / "data")
    lib.sync()
    return lib


@pytest.fixture(scope="module")
def unicode_library(tmp_path_factory):
    lib = _one_file_library(tmp_path_factory, "unicode", UNICODE_SEED)
    yield lib
    lib.close()


@pytest.mark.parametrize(("query", "starts", "highlighted"), [
    ("ＧＰＴ", "We fine-tune", ["GPT"]),                       # full-width finds ASCII
    ("gpt-4", "We fine-tune", ["GPT", "4"]),
    ("caf\u00e9", "A cafe\u0301", ["cafe\u0301"]),            # precomposed finds decomposed
    ("cafe\u0301", "A cafe\u0301", ["cafe\u0301"]),
    ("нейронные сети", "Мы предлагаем", ["нейронные", "сети"]),  # Cyrillic words
    ("НЕЙРОННЫЕ", "Мы предлагаем", ["нейронные"]),
    ("图神经网络", "本文提出", ["图", "神", "经", "网", "络"]),  # CJK by substring
    ("神经", "本文提出", ["神", "经"]),
])
def test_beyond_ascii(unicode_library, query, starts, highlighted):
    result = unicode_library.search(query)
    assert result.total == 1
    paper = unicode_library.get(result.hits[0].id)
    assert paper.abstract_markup.startswith(starts)
    text = paper.abstract_markup
    assert [text[a:b] for a, b in match_spans(text, result.terms)] == highlighted


def test_initials_of_query_words_in_a_row_are_acronyms():
    """"SVI" in an abstract stands for "stochastic variational inference" in the query; a word of
    little idf ("of") inside the run is left out of the initials."""
    def slot(word, idf):
        return rank.Slot(frozenset({word}), "", 1, f'"{word}"', idf=idf, word=word)

    found = [slot("stochastic", 3.0), slot("variational", 4.0), slot("inference", 2.0)]
    acronyms = rank._acronyms(found)
    assert acronyms["svi"] == acronyms["svis"] == 9.0
    assert "sv" not in acronyms and "vi" not in acronyms
    found = [slot("mixture", 3.0), slot("of", 0.01), slot("sparse", 2.0), slot("experts", 2.5)]
    acronyms = rank._acronyms(found)
    assert acronyms["mse"] == 7.5 and "mose" not in acronyms


def test_a_second_or_in_a_row_is_a_word_with_or_without_a_filter_after_it(shipped_library):
    """Found by hypothesis: "multi-task OR OR has:code" read the second OR as a dangling operator
    before the filter, so the filter changed which words were required."""
    plain = shipped_library.search("multi-task OR OR")
    filtered = shipped_library.search("multi-task OR OR has:code")
    assert plain.effective_query == '"multi task" OR or'
    assert filtered.effective_query == '"multi task" OR or has:code'
    assert set(ids(filtered.hits)) <= set(ids(plain.hits))


@pytest.mark.parametrize("filter_", ["has:code", "is:new", "-is:read"])
def test_an_or_before_a_filter_is_read_as_at_the_end(shipped_library, filter_):
    """Found by hypothesis: "model OR has:code" dropped the OR while "model OR" requires the
    word "or", so adding the filter brought in papers without it."""
    plain = shipped_library.search("model OR")
    filtered = shipped_library.search(f"model OR {filter_}")
    assert filtered.effective_query == f"{plain.effective_query} {filter_}"
    assert set(ids(filtered.hits)) <= set(ids(plain.hits))


COMPOUND_SEED = "Compounds 2025\n\n" + "\n\n".join([
    *(f"We report a notable gain in accuracy for sparse model number {i}." for i in range(4)),
    *(f"Current detectors are not able to find small object number {i}." for i in range(4)),
    *(f"These features are useless for ranking list number {i}." for i in range(3)),
    *(f"Our method can use less memory on device number {i}." for i in range(3)),
    *(f"A multitask learner for speech corpus number {i}." for i in range(2)),
    *(f"A multi-task benchmark for vision suite number {i}." for i in range(3)),
]) + "\n"


@pytest.fixture(scope="module")
def compound_library(tmp_path_factory):
    lib = _one_file_library(tmp_path_factory, "compounds", COMPOUND_SEED)
    yield lib
    lib.close()


@pytest.mark.parametrize(("query", "effective", "total"), [
    # two words that only meet by chance are no spelling of the word they run together into:
    # no abstract writes "not-able" or "use-less"
    ("notable", "notable", 4),
    ('"not able"', '"not able"', 4),
    ("useless", "useless", 3),
    ("use-less", '"use less"', 3),
    # while some abstract writes "multi-task", so each spelling finds both
    ("multitask", 'multitask OR "multi task"', 5),
    ("multi-task", '"multi task" OR multitask', 5),
])
def test_only_a_hyphenated_pair_is_a_compound_spelled_otherwise(compound_library, query,
                                                                 effective, total):
    """Found by trying the search: "notable" found every "not able to", "useless" every "can use
    less", since both phrases are in enough abstracts."""
    found = compound_library.search(query)
    assert (found.effective_query, found.total) == (effective, total)


@pytest.mark.parametrize(("query", "effective"), [
    ("-multitask", '-multitask -"multi task"'),
    ("-multi-task", '-"multi task" -multitask'),
    ("number -multitask", 'number -multitask -"multi task"'),
    # a spelling typed already is not added again
    ('multitask OR "multi task"', 'multitask OR "multi task"'),
    ('-multitask -"multi task"', '-multitask -"multi task"'),
])
def test_the_effective_query_of_an_excluded_compound_reads_back_the_same(compound_library, query,
                                                                           effective):
    """Found by trying the search: "-multitask" read as '-(multitask OR "multi task")', which the
    query language (no parentheses) reads as excluding "multitask", requiring the word "or" and
    the phrase: typed back, it found nothing instead of every other paper."""
    found = compound_library.search(query)
    again = compound_library.search(found.effective_query)
    assert found.effective_query == again.effective_query == effective
    assert ids(all_hits(compound_library, query)) == ids(all_hits(compound_library, effective))
    assert again.total == found.total > 0


def test_a_filter_value_in_quotes_is_one_value(shipped_library):
    """The collection is "ICML 2025": ``in:"ICML 2025"`` names it whole, as a phrase does."""
    everyone = set(ids(all_hits(shipped_library)))
    graph = set(ids(all_hits(shipped_library, "graph")))
    quoted = shipped_library.search('in:"ICML 2025"', limit=100)
    assert (set(ids(quoted.hits)), quoted.notice) == (everyone, "")
    assert quoted.effective_query == 'in:"ICML 2025"'
    assert shipped_library.search(quoted.effective_query).total == 35
    assert set(ids(all_hits(shipped_library, 'graph in:"ICML 2025"'))) == graph
    assert shipped_library.search('graph -in:"ICML 2025"').total == 0
    assert shipped_library.search('in:"NeurIPS 2025"').total == 0
    assert shipped_library.search('-in:"ICML 2024"').total == 35
    assert shipped_library.search('is:"new"').total == 35
    assert shipped_library.search('has:"code"').total == 9


@pytest.mark.parametrize(("query", "notice"), [
    ("in:", "in: names no collection; ignored (like in:icml)"),
    ('in:""', "in: names no collection; ignored (like in:icml)"),
    ("-in:", "in: names no collection; ignored (like in:icml)"),
    ("au:", "au: names no author; ignored (like au:vedaldi)"),
    ('au:""', "au: names no author; ignored (like au:vedaldi)"),
    ("-au:", "au: names no author; ignored (like au:vedaldi)"),
    ("au:%", "au:% names no author; ignored (like au:vedaldi)")])
def test_a_filter_with_nothing_to_match_is_ignored_and_said(shipped_library, query, notice):
    result = shipped_library.search(f"graph {query}", limit=100)
    assert set(ids(result.hits)) == set(ids(all_hits(shipped_library, "graph")))
    assert result.notice == notice


@pytest.mark.parametrize("after", ["is:new", "-is:read", "has:code", "in:icml", "au:x", "tag:x"])
def test_a_filter_typed_after_a_word_leaves_the_word_whole(shipped_library, after):
    """The word being typed is the filter, not the word before it: "graph" is no prefix."""
    result = shipped_library.search(f"graph {after}", typing=True)
    assert result.effective_query == f"graph {after}"
    assert result.terms == ("graph",)
    assert shipped_library.search("graph", typing=True).effective_query == "graph*"


def test_a_word_typed_again_runs_once(shipped_library):
    """Each copy of a word was one more bm25 pass over all its matches (87,000 abstracts: "the"
    typed 32 times took 2.4 s); it finds nothing more, so the index is asked for it once."""
    assert parse("the " * 32).match_expression() == parse("the").match_expression()
    assert parse("graph OR graph attention attention").match_expression().count("graph") == 1
    assert parse("x -y -y").exclusion_expression() == parse("x -y").exclusion_expression()
    again = shipped_library.search("multi-task multi-task -reinforcement -reinforcement", limit=100)
    once = shipped_library.search("multi-task -reinforcement", limit=100)
    assert ids(again.hits) == ids(once.hits) and again.total == 5
    assert [h.score for h in again.hits] == [h.score for h in once.hits]


def test_two_statuses_both_apply_and_find_nothing(library):
    """A filter never brings papers in: "is:read is:new" showed every new paper, and
    "is:read" with the status filter "new" (``--status new``, the browser's filter) the read."""
    first = ids(all_hits(library))[0]
    library.set_status([first], "read")
    assert ids(all_hits(library, "is:read")) == [first]
    notice = "a paper has one status: is:read and is:new find nothing"
    for result in (library.search("is:read is:new"), library.search("is:read", status="new")):
        assert (result.total, result.hits, result.notice) == (0, [], notice)
    assert library.search("is:read is:new").effective_query == "is:read is:new"
    assert ids(all_hits(library, "is:read is:read")) == [first]
    assert ids(all_hits(library, "is:read", status="read")) == [first]
    assert library.search("is:read", status="all").total == 1
    assert library.search("", status="read").notice == ""


def test_like_inside_a_longer_query_is_ignored_and_said(shipped_library):
    """like:ID is a whole query; among words it was the words "like" and the id, which no paper
    has, so partial matches came in that the words alone never show."""
    parm = shipped_library.search("PARM").hits[0].id
    assert shipped_library.search(f"like:{parm[:8]}").total > 0
    for query in (f"graph like:{parm[:8]}", "like:to-read graph", f"graph -like:{parm}"):
        result = shipped_library.search(query, limit=100)
        assert ids(result.hits) == ids(all_hits(shipped_library, "graph")), query
        assert result.notice.startswith("like: is a query on its own (like:ID); ignored")
        assert result.effective_query == "graph"
    assert shipped_library.search("methods like: attention").effective_query == \
        "methods like attention"


def test_or_after_an_excluding_filter_is_explained_as_after_a_filter(shipped_library):
    """"is:read OR x" said the OR joins no filter; "-is:read OR x" required the word "or"."""
    for query, effective in (("is:read OR graph", "graph is:read"),
                             ("-is:read OR graph", "graph -is:read"),
                             ("-has:code OR graph", "graph -has:code")):
        result = shipped_library.search(query)
        assert result.effective_query == effective
        assert result.notice == "OR joins words, not filters: the filters all apply"
    assert shipped_library.search("-is:read OR graph").total == 2


def test_the_partial_match_notice_counts_the_words_typed(shipped_library):
    """It said "only the first 32 words are used; no paper has all 80 words": each part of a
    hyphenated word and each repeat counted as one more word."""
    query = " ".join(f"state-of-the-art zzqy{i}" for i in range(20))
    assert shipped_library.search(query).notice == (
        "only the first 32 words are used; no paper has all 17 words; "
        "showing best partial matches")
    assert shipped_library.search("diplomacy multi-agent tensor").notice == \
        "no paper has all 3 words; showing best partial matches"
