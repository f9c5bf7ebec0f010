"""The Python package against DuckDB on the same data, on every device under
test ($CLQ_TEST_DEVICES, a clq device selector, else every device): tables in
from pyarrow, pandas and DuckDB, results out through pyarrow, pandas and
DuckDB, Parquet files, and the errors. Integers must be identical, REAL
within 1e-9 relative."""

import random

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import clq
from agree import assert_same_rows



def _data(rows=5000, seed=7):
    rng = random.Random(seed)
    return pa.table(
        {
            "k": pa.array([rng.randrange(-50, 50) for _ in range(rows)], pa.int32()),
            "big": pa.array([rng.randrange(-(2**62), 2**62) for _ in range(rows)], pa.int64()),
            "small": pa.array([rng.randrange(0, 200) for _ in range(rows)], pa.uint8()),
            "x": pa.array([rng.uniform(-1e6, 1e6) for _ in range(rows)], pa.float64()),
            "s": pa.array([rng.choice(["apple", "pear", "fig", "kiwi", ""]) for _ in range(rows)]),
            "flag": pa.array([rng.random() < 0.3 for _ in range(rows)]),
        }
    )


INTEGER_QUERIES = [
    ("SELECT COUNT(*), SUM(k), MIN(big), MAX(big), SUM(small) FROM t", True),
    ("SELECT k, COUNT(*), SUM(small), MAX(big) FROM t GROUP BY k ORDER BY k", True),
    ("SELECT s, COUNT(*) FROM t WHERE k > 10 AND small < 150 GROUP BY s", False),
    ("SELECT k, big FROM t WHERE flag = 1 ORDER BY big DESC, k LIMIT 17", True),
    ("SELECT DISTINCT s FROM t", False),
    ("SELECT a.k, COUNT(*) FROM t a JOIN u b ON a.k = b.k GROUP BY a.k", False),
    ("SELECT s, SUM(CASE WHEN k > 0 THEN small ELSE 0 END), COUNT(CASE WHEN big > 0 THEN 1 END) "
     "FROM t WHERE s LIKE '%i%' OR s LIKE 'p%' GROUP BY s", False),
    ("SELECT CASE k % 3 WHEN 0 THEN 'a' WHEN 1 THEN 'b' END = 'a', COUNT(*) FROM t "
     "WHERE s NOT LIKE '_i%' AND s LIKE '%' GROUP BY 1", False),
]
REAL_QUERIES = [
    ("SELECT k, SUM(x), MIN(x), AVG(x) FROM t GROUP BY k ORDER BY k", True),
    ("SELECT x * 2 + k FROM t WHERE x > 0 ORDER BY 1 LIMIT 25", True),
    ("SELECT k, MAX(CASE WHEN x > 0 THEN x ELSE k END) FROM t WHERE s LIKE 'p%r' GROUP BY k "
     "ORDER BY k", True),
]


@pytest.mark.parametrize("query,ordered", INTEGER_QUERIES + REAL_QUERIES)
def test_queries_agree_with_duckdb(con, query, ordered):
    if (query, ordered) in REAL_QUERIES and not con.fp64:
        pytest.skip("REAL needs fp64 on the device")
    t = _data()
    u = pa.table({"k": pa.array(range(-60, 60, 3), pa.int64())})
    con.register("t", t)
    con.register("u", u)
    peer = duckdb.connect()
    peer.register("t", t)
    peer.register("u", u)
    expected = peer.sql(query.replace("flag = 1", "flag")).fetchall()
    assert_same_rows(expected, con.sql(query).fetchall(), ordered)


def test_sources_and_consumers(con, tmp_path):
    pandas = pytest.importorskip("pandas")
    con.register("p", pandas.DataFrame({"a": [3, 1, 2], "b": ["x", "yy", "z"]}))
    con.register("d", duckdb.sql("SELECT range::INTEGER AS i FROM range(1000)"))
    con.register("r", pa.record_batch({"v": pa.array([5, 6], pa.int64())}))
    result = con.sql("SELECT a, b FROM p ORDER BY a")
    assert result.columns == ["a", "b"]
    assert len(result) == 3
    assert result.fetchall() == [(1, "yy"), (2, "z"), (3, "x")]
    assert pa.table(result).column("b").to_pylist() == ["yy", "z", "x"]
    assert list(result.df()["a"]) == [1, 2, 3]
    assert duckdb.from_arrow(result).fetchall() == [(1, "yy"), (2, "z"), (3, "x")]
    assert con.sql("SELECT SUM(i), COUNT(*) FROM d").fetchall() == [(499500, 1000)]
    assert con.sql("SELECT SUM(v) FROM r").fetchall() == [(11,)]
    path = tmp_path / "numbers.parquet"
    pq.write_table(pa.table({"n": pa.array(range(100), pa.int32())}), path)
    con.read_parquet(path)
    assert con.sql("SELECT COUNT(*), MAX(n) FROM numbers").fetchall() == [(100, 99)]
    assert "numbers" in con.tables()


def test_results_with_nulls_and_empty_results(con):
    con.register("e", pa.table({"a": pa.array([1, 2, 3], pa.int64())}))
    out = pa.table(con.sql("SELECT MAX(a) AS m, COUNT(*) AS n FROM e WHERE a > 5"))
    assert out.column("m").to_pylist() == [None]
    assert out.column("n").to_pylist() == [0]
    empty = pa.table(con.sql("SELECT a FROM e WHERE a > 5"))
    assert empty.num_rows == 0 and empty.schema.field("a").type == pa.int64()


def test_errors_are_clear_exceptions(con):
    con.register("e", pa.table({"a": pa.array([1, 2, 3], pa.int64())}))
    with pytest.raises(clq.SqlError, match="no column named 'nope'"):
        con.sql("SELECT nope FROM e")
    with pytest.raises(clq.InvalidInputError, match="integer overflow"):
        con.sql("SELECT a * 9223372036854775807 FROM e")
    with pytest.raises(clq.InvalidInputError, match="column 'a', row 2: NaN"):
        con.register("n", pa.table({"a": [1.0, float("nan")]}))
    with pytest.raises(clq.InvalidInputError, match="past INT64's range"):
        con.register("u", pa.table({"a": pa.array([2**64 - 1], pa.uint64())}))
    with pytest.raises(clq.InvalidInputError, match="time"):
        con.register("tm", pa.table({"a": pa.array([1], pa.time32("s"))}))
    with pytest.raises(TypeError, match="neither __arrow_c_stream__"):
        con.register("x", [1, 2, 3])
    with pytest.raises(clq.InvalidInputError):
        clq.connect("no-such-device-anywhere")
    assert issubclass(clq.SqlError, clq.Error)


def test_a_host_locale_with_a_decimal_comma_changes_nothing(con):
    """A program embedding clq may set a locale (DuckDB's import set one under
    which clq read its memory budget as 0): literals, numbers clq reads from
    files, and results stay the same."""
    import locale

    before = locale.setlocale(locale.LC_ALL)
    for name in ("de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "ru_RU.UTF-8"):
        try:
            locale.setlocale(locale.LC_ALL, name)
            break
        except locale.Error:
            continue
    else:
        pytest.skip("no locale with a decimal comma is installed")
    try:
        assert locale.localeconv()["decimal_point"] == ","
        con.register("loc", pa.table({"k": pa.array([1, 2, 2], pa.int64())}))
        fresh = clq.connect(con.device)
        fresh.register("loc", pa.table({"k": pa.array([1, 2, 2], pa.int64())}))
        assert fresh.sql("SELECT k, COUNT(*) FROM loc GROUP BY k ORDER BY k").fetchall() == [(1, 1), (2, 2)]
        if con.fp64:
            assert fresh.sql("SELECT SUM(k) * 1.5 FROM loc").fetchall() == [(7.5,)]
    finally:
        locale.setlocale(locale.LC_ALL, before)
