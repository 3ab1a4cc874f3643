"""Search filters (is:, has:, in:, au:, like:): what they find, and with OR and exclusions."""

from __future__ import annotations

import re

import pytest

from db.models import MAX_QUERY_CHARS
from db.text import paper_id
from tests.db_support import FILE_B, SHIPPED_SEEDS, all_hits, ids
from tests.search_support import SEED_ORDER, _containing


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
        35, "unknown filter is:bogus ignored (use is:new, is:to-read, is:read, "
        "is:dismissed)")


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


def test_or_before_a_filter_is_explained_as_after_one(shipped_library):
    """"graph OR is:read" and "graph OR has:code" searched graph (the OR a word) with the
    filter, saying nothing: the notice says the filter applies, as after one."""
    for query, filtered in (("graph OR is:read", "graph is:read"),
                            ("graph OR has:code", "graph has:code"),
                            ("graph OR in:icml neural", "graph OR neural in:icml")):
        result = shipped_library.search(query, limit=100)
        assert result.notice == "OR joins words, not filters: the filters all apply", query
        assert ids(result.hits) == ids(all_hits(shipped_library, filtered)), query


@pytest.mark.parametrize("query", ["in:icml learning", "-in:icml learning", "in:ability",
                                   "tag:moe", "-tag:moe learning", "in:icml tag:moe"])
def test_a_filter_finds_its_papers_once_not_paper_by_paper(library, query):
    """``in:`` and ``tag:`` find the papers they keep once per query, not with a look-up per
    paper of the index: SQLite's plan of every statement of the search has no correlated
    subquery (at 87k papers, ``in:" ability`` took 0.8-1.03 s; found by the query fuzzer)."""
    library.tag([next(h.id for h in all_hits(library) if h.name == "PARM")], ["moe"])
    statements: list[str] = []
    library.search("x")  # the connections opened before the trace
    conn = library._index()
    conn.set_trace_callback(statements.append)
    library.search(query)
    conn.set_trace_callback(None)
    plans = [detail for sql in statements if sql.lstrip().upper().startswith("SELECT")
             for *_, detail in conn.execute("EXPLAIN QUERY PLAN " + sql)]
    assert plans and not [d for d in plans if "CORRELATED" in d], plans


def test_many_ignored_filters_make_one_short_notice(shipped_library):
    """150 filters that are each ignored (year:20100, is:done1...) said 150 things in one
    7,000-character line: the notice gives the first few and counts the others."""
    for query in (" ".join(f"year:{20100 + i}" for i in range(150)),
                  " ".join(f"is:done{i}" for i in range(150))):
        result = shipped_library.search(query)
        assert result.total == 35
        assert len(result.notice) < 500
        assert result.notice.endswith("; and 147 more notices")


def test_a_query_too_long_is_cut_at_a_word_not_inside_a_filter(shipped_library):
    """A query is read up to MAX_QUERY_CHARS: cut inside "year:20281" it was "year:2028", a
    filter that kept no paper."""
    words = "-zzzz " * 331 + "-zzz "
    assert len(words) == MAX_QUERY_CHARS - len("year:2028")
    result = shipped_library.search(words + "year:20281")
    assert result.total == 35
    assert "year" not in result.effective_query


def test_to_read_spelt_with_a_space_or_an_underscore_is_the_status(shipped_library):
    """``status:"to read"`` was a venue's decision "to read" that no paper has (no notice,
    nothing found); it is ``is:to-read``, as ``status:toread`` is."""
    for query in ('status:"to read"', "status:to_read", "is:to_read", 'is:"to read"'):
        assert shipped_library.search(query).effective_query == "is:to-read", query
