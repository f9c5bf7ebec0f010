"""Subqueries against DuckDB where SQLite (the SQL files' oracle) lacks the
syntax or the types: a derived table's column list after its alias, WITH
tables, and DATE and DECIMAL columns flowing through derived tables and
scalar subqueries."""

import datetime
import decimal
import random

import duckdb
import pyarrow as pa
import pytest

import clq

from agree import assert_same_rows


def _table(rows=3000, seed=5):
    rng = random.Random(seed)
    return pa.table(
        {
            "k": pa.array([rng.randrange(0, 40) for _ in range(rows)], pa.int32()),
            "g": pa.array([rng.randrange(0, 6) for _ in range(rows)], pa.int64()),
            "p": pa.array([decimal.Decimal(rng.randrange(0, 10**7)) / 100 for _ in range(rows)],
                          pa.decimal128(15, 2)),
            "d": pa.array([datetime.date(1992, 1, 1) + datetime.timedelta(days=rng.randrange(0, 2500))
                           for _ in range(rows)], pa.date32()),
        }
    )


QUERIES = [
    "SELECT c, COUNT(*) FROM (SELECT k, COUNT(*) FROM t GROUP BY k) AS x (k, c) GROUP BY c",
    "SELECT g, total FROM (SELECT g, SUM(p) FROM t GROUP BY g) AS s (g, total) WHERE total > 1000000",
    "WITH m (g, top) AS (SELECT g, MAX(p) FROM t GROUP BY g) SELECT t.g, COUNT(*) FROM t, m WHERE t.g = m.g AND t.p > m.top - 50000 GROUP BY t.g",
    "SELECT COUNT(*) FROM t WHERE p > (SELECT AVG(p) FROM t)",
    "SELECT COUNT(*) FROM t WHERE d = (SELECT MAX(d) FROM t)",
    "SELECT k, p FROM t o WHERE p = (SELECT MIN(p) FROM t i WHERE i.k = o.k)",
    "SELECT g, MIN(d) FROM t WHERE k IN (SELECT k FROM t WHERE d < DATE '1993-01-01' GROUP BY k HAVING COUNT(*) > 10) GROUP BY g",
    "SELECT y, SUM(p) FROM (SELECT EXTRACT(YEAR FROM d) AS y, p FROM t) AS v GROUP BY y",
]


@pytest.mark.parametrize("query", QUERIES)
def test_subqueries_agree_with_duckdb(con, query):
    t = _table()
    con.register("t", t)
    peer = duckdb.connect()
    peer.register("t", t)
    if "AVG" in query and not con.fp64:
        pytest.skip("REAL needs fp64 on the device")
    actual = con.sql(query).fetchall()
    assert_same_rows(peer.sql(query).fetchall(), actual, ordered=False)
