"""Similar papers on the shipped seeds: the mixture-of-experts papers find each other, and so do
the multi-objective / Pareto papers; "more like my to-read list" ranks new papers only."""

from __future__ import annotations

import pytest

from db import LibraryError
from tests.db_support import ids

MENTOR, M3DT, HC_SMOE = "eb8c16cf3afbe389", "58f4bebc8eaa994b", "f0ccd52ec0b3dac0"
PARM, MO_CBO, PHN_HVVS = "0412d482992496cb", "6b971365fa1cdc0e", "e3276221a1d5791d"
GROUPS = [(MENTOR, M3DT, HC_SMOE), (PARM, MO_CBO, PHN_HVVS)]


def _rank(result, paper_id: str) -> int:
    return ids(result.hits).index(paper_id) + 1


@pytest.mark.parametrize("group", GROUPS, ids=["mixture-of-experts", "pareto"])
def test_papers_of_one_topic_find_each_other(shipped_library, group):
    for paper in group:
        result = shipped_library.similar(paper, limit=34)
        assert paper not in ids(result.hits)
        ranks = sorted(_rank(result, other) for other in group if other != paper)
        assert ranks[0] <= 3 and ranks[1] <= 8, (paper, ranks)


def test_the_nearest_neighbours_exactly(shipped_library):
    assert [h.label for h in shipped_library.similar(MENTOR, limit=2).hits] == ["HC-SMoE", "M3DT"]
    assert [h.label for h in shipped_library.similar(MO_CBO, limit=2).hits] == [
        "PHN-HVVS", "PARM"]
    result = shipped_library.similar("6b97")
    assert result.query == "like:6b971365"
    assert result.notice.startswith("papers like MO-CBO (by ")
    assert {"pareto", "multi objective", "bayesian"} <= set(result.terms)
    assert result.total == len(shipped_library.similar(MO_CBO, limit=100).hits)


def test_like_in_a_query_is_the_same_list(shipped_library):
    assert ids(shipped_library.search("like:6b971365").hits) == ids(
        shipped_library.similar(MO_CBO).hits)
    assert ids(shipped_library.search("like:6b97", limit=3, offset=1).hits) == ids(
        shipped_library.similar(MO_CBO).hits[1:4])
    bad = shipped_library.search("like:zz")
    assert (bad.total, bad.notice) == (0, "'zz' is not a paper id (ids are hex, like 3fa2c01b)")
    with pytest.raises(LibraryError, match="no paper has an id starting with ffff"):
        shipped_library.similar("ffff")


def test_more_like_my_to_read_list_ranks_new_papers_only(library):
    assert library.like_to_read().notice == "no paper is marked to-read yet"
    library.set_status([M3DT, PHN_HVVS], "to-read")
    library.set_status([MO_CBO], "read")
    result = library.search("like:to-read")
    assert result.notice.startswith("new papers like your to-read list (by ")
    assert {h.status for h in result.hits} == {"new"}
    assert not {M3DT, PHN_HVVS, MO_CBO} & set(ids(result.hits))
    # M3DT's mixture-of-experts neighbours come first
    assert ids(result.hits[:2]) == [HC_SMOE, MENTOR]


def test_cli_to_read_with_another_status_is_refused_not_ignored(run_cli):
    run_cli("mark", "0412d482", "--to-read")
    refused = run_cli("similar", "--to-read", "--status", "read")
    assert refused.exit_code == 2
    assert "--to-read finds new papers only" in refused.stderr
    assert "traceback" not in refused.stderr.lower()
    allowed = run_cli("similar", "--to-read", "--status", "new", "--json")
    assert allowed.exit_code == 0
