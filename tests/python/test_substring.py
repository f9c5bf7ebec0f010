"""SUBSTRING against DuckDB on the TPC-H tables at SF 0.01 (test_tpch.py's
data and harness), on every device under test: TPC-H Q22's shape without
its NOT EXISTS (a SUBSTRING IN list in WHERE, of the outer query and of a
scalar subquery, and a derived table's SUBSTRING column grouped by), and
SUBSTRING's outputs and comparisons on CHAR and VARCHAR columns."""

import os

import pytest

from test_tpch import QUERY_DIR, _expect_agreement, _run_clq, _selectors, tpch  # noqa: F401


def _q22_without_not_exists():
    with open(os.path.join(QUERY_DIR, "q22.sql")) as f:
        sql = f.read()
    start = sql.index("and not exists")
    end = sql.index(")", sql.index("o_custkey = c_custkey")) + 1
    return sql[:start] + sql[end:]


# id -> (SQL, the result columns that its ORDER BY sorts on).
QUERIES = {
    "q22_without_not_exists": (_q22_without_not_exists(), [0]),
    "outputs": (
        "select c_custkey, substring(c_phone from 1 for 2), substring(c_phone, 4), "
        "substr(c_name, -3), substring(c_name from 10 for 4), substring(c_comment, 5, -3), "
        "substring(c_mktsegment, 0, 3) from customer where c_custkey % 7 = 1 order by c_custkey",
        [0]),
    "predicates": (
        "select c_custkey, c_phone from customer where substring(c_phone, 4, 3) in ('100', '555', "
        "'123', '999') or substring(c_name from 12 for 6) = '000011' order by c_custkey", [0]),
    "not_in": (
        "select count(*), sum(c_custkey) from customer where substring(c_phone, 1, 2) not in "
        "('10', '11', '12', '13', '14') and substring(c_mktsegment, 1, 4) <> 'AUTO'", []),
    "derived_group": (
        "select seg, count(*) as n, sum(c_acctbal) from (select substring(c_mktsegment, 1, 3) as "
        "seg, c_acctbal from customer where substring(c_phone, 1, 1) = '2') as x group by seg "
        "order by seg", [0]),
    "group_key_output": (
        "select substring(o_orderpriority, 1, 1) as p, count(*) from orders group by "
        "o_orderpriority order by p", [0]),
}


@pytest.mark.parametrize("selector", _selectors())
@pytest.mark.parametrize("query", sorted(QUERIES))
def test_substring(tpch, selector, query):  # noqa: F811
    binary, tables, peer = tpch
    sql, keys = QUERIES[query]
    result = _run_clq(binary, tables, selector, sql=sql)
    assert result.returncode in (0, 1), \
        f"{query} on {selector}: exit status {result.returncode}\n{result.stderr[-2000:]}"
    _expect_agreement(query, selector, result, peer.execute(sql).fetchall(), keys)
