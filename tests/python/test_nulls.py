"""Tables with NULLs registered from pyarrow and pandas (about 30% NULL in
integer, float and string columns, a nullable join key, a column of nothing
but NULLs), queried by clq and by DuckDB on the same Arrow data: filters on
nullable columns, IS NULL, GROUP BY a nullable key, the aggregates, a join
on a nullable key. Rows are compared unordered: DuckDB puts NULL last in
ascending order, SQLite (whose semantics clq has) first."""

import random

import duckdb
import pyarrow as pa
import pytest

import clq
from agree import assert_same_rows



def _maybe(rng, value, share=0.3):
    return None if rng.random() < share else value


def _tables(rows=4000, seed=11):
    rng = random.Random(seed)
    t = pa.table(
        {
            "k": pa.array([_maybe(rng, rng.randrange(-20, 20)) for _ in range(rows)], pa.int32()),
            "v": pa.array(
                [_maybe(rng, rng.randrange(-(2**40), 2**40)) for _ in range(rows)], pa.int64()
            ),
            "small": pa.array([_maybe(rng, rng.randrange(0, 100)) for _ in range(rows)], pa.int16()),
            "x": pa.array([_maybe(rng, rng.uniform(-1e3, 1e3)) for _ in range(rows)], pa.float64()),
            "s": pa.array(
                [_maybe(rng, rng.choice(["apple", "pear", "fig", "kiwi", ""])) for _ in range(rows)]
            ),
            "d": pa.array(
                [_maybe(rng, rng.choice(["red", "green", "blue"])) for _ in range(rows)]
            ).dictionary_encode(),
        }
    )
    # Sliced, so that the validity bitmaps start at an offset within a byte.
    t = t.slice(3)
    u = pa.table(
        {
            "k": pa.array([_maybe(rng, key) for key in range(-25, 25, 2)], pa.int64()),
            "w": pa.array([_maybe(rng, rng.randrange(0, 1000)) for _ in range(-25, 25, 2)], pa.int64()),
        }
    )
    return t, u


INTEGER_QUERIES = [
    "SELECT COUNT(*), COUNT(k), COUNT(v) FROM t",
    "SELECT SUM(k), SUM(v), MIN(v), MAX(v), MIN(small), MAX(small) FROM t",
    "SELECT k, COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), SUM(small) FROM t GROUP BY k",
    "SELECT s, COUNT(*), COUNT(k), SUM(k) FROM t GROUP BY s",
    "SELECT d, s, COUNT(*) FROM t GROUP BY d, s",
    "SELECT COUNT(*) FROM t WHERE k IS NULL",
    "SELECT COUNT(*), SUM(small) FROM t WHERE k IS NOT NULL AND v > 0",
    "SELECT k, v, s FROM t WHERE k > 15 AND small < 30",
    "SELECT k, s FROM t WHERE NOT (k < 0) OR v < 0",
    "SELECT DISTINCT s FROM t",
    "SELECT a.k, COUNT(*), SUM(b.w) FROM t a JOIN u b ON a.k = b.k GROUP BY a.k",
    "SELECT b.w, a.s FROM t a JOIN u b ON a.k = b.k WHERE a.v IS NULL",
]
# NULLs of TEXT columns: COUNT, IS [NOT] NULL and comparisons read the
# column's NULL map on the device.
TEXT_NULL_QUERIES = [
    "SELECT COUNT(s), COUNT(d) FROM t",
    "SELECT COUNT(*) FROM t WHERE s IS NOT NULL",
    "SELECT COUNT(*) FROM t WHERE s IS NULL OR s < 'c'",
    "SELECT k FROM t WHERE s = 'fig'",
    "SELECT k, s FROM t WHERE NOT (s <> 'fig') OR k IS NULL",
]
REAL_QUERIES = [
    "SELECT COUNT(x) FROM t",
    "SELECT k, SUM(x), MIN(x), MAX(x), AVG(x), AVG(v) FROM t GROUP BY k",
    "SELECT COUNT(*), AVG(small), SUM(x) FROM t WHERE x > 0 OR x IS NULL",
    "SELECT x * 2 + k FROM t WHERE small > 90",
]


@pytest.mark.parametrize("query", INTEGER_QUERIES + REAL_QUERIES)
def test_nullable_columns_agree_with_duckdb(con, query):
    if query in REAL_QUERIES and not con.fp64:
        pytest.skip("REAL needs fp64 on the device")
    t, u = _tables()
    con.register("t", t)
    con.register("u", u)
    peer = duckdb.connect()
    peer.register("t", t)
    peer.register("u", u)
    expected = peer.sql(query).fetchall()
    assert_same_rows(expected, con.sql(query).fetchall(), ordered=False)


@pytest.mark.parametrize("query", TEXT_NULL_QUERIES)
def test_text_nulls_agree_with_duckdb(con, query):
    test_nullable_columns_agree_with_duckdb(con, query)


def test_pandas_with_missing_values(con):
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(
        {
            "i": pandas.array([1, None, 3, None, 5], dtype="Int64"),
            "f": [0.5, float("nan"), 2.5, 3.5, None],  # NaN is pandas' missing value
            "s": ["a", None, "", "bb", None],
            "nothing": [None] * 5,  # Arrow's null type: INT32, every row NULL
        }
    )
    con.register("p", frame)
    peer = duckdb.connect()
    peer.register("p", pa.Table.from_pandas(frame))
    queries = [
        "SELECT COUNT(i), SUM(i), COUNT(nothing), SUM(nothing) FROM p",
        "SELECT i, s FROM p WHERE i IS NULL OR i > 2",
        "SELECT s, COUNT(*) FROM p GROUP BY s",
    ]
    if con.fp64:  # f is REAL: a device without fp64 refuses it
        queries += ["SELECT COUNT(f) FROM p", "SELECT i, s FROM p WHERE f IS NULL OR i > 2"]
        assert con.sql("SELECT SUM(f), MAX(f) FROM p").fetchall() == [(6.5, 3.5)]
    for query in queries:
        assert_same_rows(peer.sql(query).fetchall(), con.sql(query).fetchall(), ordered=False)
    out = pa.table(con.sql("SELECT i, s FROM p"))
    assert out.column("i").to_pylist() == [1, None, 3, None, 5]
    assert out.column("s").to_pylist() == ["a", None, "", "bb", None]
    assert out.column("i").null_count == 2


def test_nan_that_is_a_value_is_refused(con):
    with pytest.raises(clq.InvalidInputError, match="NaN"):
        con.register("nan", pa.table({"a": pa.array([1.0, float("nan")], pa.float64())}))
    # Under a NULL it is no value.
    masked = pa.array([1.0, float("nan")], pa.float64(), mask=pa.array([False, True]))
    con.register("masked", pa.table({"a": masked}))
    if con.fp64:  # a is REAL: a device without fp64 refuses it
        assert con.sql("SELECT COUNT(a), COUNT(*) FROM masked").fetchall() == [(1, 2)]
