"""clq.dask against DuckDB on the whole data: partial queries on partitions
(some of them empty after the WHERE), combined in Dask; joins with a
broadcast table; top-k; NULL-heavy columns and a key NULL in whole
partitions; the refusals; on the default scheduler and on a LocalCluster of
two worker processes, each with its own connection."""

import os

import duckdb
import numpy as np
import pandas as pd
import pytest

import clq
from agree import assert_same_rows

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")
import clq.dask  # noqa: E402


def _device():
    return os.environ.get("CLQ_TEST_DEVICES") or None


def _fp64():
    devices = clq.devices()
    chosen = clq.connect(_device()).device
    return any(d["fp64"] for d in devices if d["name"] == chosen)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(20261127)
    n = 20000
    missing = rng.random((3, n)) < 0.3
    frame = pd.DataFrame(
        {
            "k": rng.integers(0, 40, n),
            "v": rng.integers(-(2**40), 2**40, n),
            "x": rng.random(n) * 1e6,
            "s": rng.choice(["apple", "pear", "fig"], n),
            # NULL-heavy columns: NULL as pandas' NA, NaN and None.
            "nv": pd.array(np.where(missing[0], None, rng.integers(-1000, 1000, n)), dtype="Int64"),
            "ny": np.where(missing[1], np.nan, rng.integers(-40, 40, n) / 4),
            "ns": np.where(missing[2], None, rng.choice(["a", "b", "c", "d"], n)),
        }
    )
    # A key that is NULL in whole partitions: every row past 15000.
    frame["nk"] = pd.array(np.where(np.arange(n) >= 15000, None, frame["k"] % 7), dtype="Int64")
    # Sorted by k, so that a filter on k empties whole partitions.
    frame = frame.sort_values("k", kind="stable").reset_index(drop=True)
    dim = pd.DataFrame({"k": np.arange(0, 40, 3), "name": [f"n{i}" for i in range(0, 40, 3)]})
    return frame, dd.from_pandas(frame, npartitions=7), dim


@pytest.fixture(scope="module")
def cluster():
    """A dask.distributed LocalCluster of two worker processes, each with
    its own clq connection (OpenCL context)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local, distributed.Client(local):
        yield local


def _check(query, data, ordered=True):
    frame, ddf, dim = data
    got = clq.dask.sql(query, tables={"t": ddf, "dim": dim}, device=_device())
    peer = duckdb.connect()
    # SQLite's order, which clq keeps: NULL is the smallest value.
    peer.execute("SET default_null_order = 'nulls_first_on_asc_last_on_desc'")
    peer.register("t", frame)
    peer.register("dim", dim)
    expected = peer.sql(query).fetchall()
    rows = [tuple(None if pd.isna(v) else v for v in r) for r in got.itertuples(index=False)]
    assert_same_rows(expected, rows, ordered)


INTEGER = [
    "SELECT k, SUM(v) AS sv, COUNT(*) AS n, MIN(v), MAX(v) FROM t GROUP BY k ORDER BY k",
    "SELECT COUNT(*), SUM(v), MIN(k), MAX(k) FROM t WHERE k >= 35",
    "SELECT COUNT(*), SUM(v), MIN(v) FROM t WHERE k > 1000",
    "SELECT s, COUNT(*) FROM t WHERE v > 0 GROUP BY s ORDER BY 2 DESC, 1",
    "SELECT k, v FROM t WHERE v > 1000000000000 ORDER BY v DESC, k LIMIT 7 OFFSET 3",
    "SELECT d.name, COUNT(*), SUM(t.v) FROM t JOIN dim d ON t.k = d.k GROUP BY d.name ORDER BY 1",
    "SELECT DISTINCT s FROM t ORDER BY s",
    "SELECT k FROM t GROUP BY k ORDER BY k DESC LIMIT 5",
    "SELECT k, s, v FROM t WHERE k BETWEEN 10 AND 12 AND s IN ('fig', 'pear') ORDER BY v LIMIT 25",
    "SELECT COUNT(*), MIN(v), MAX(v) FROM t WHERE NOT (k < 20) OR s = 'apple'",
    "SELECT k, s, COUNT(*), SUM(v) FROM t WHERE k < 6 GROUP BY k, s ORDER BY k, s",
]
NULLS = [
    "SELECT COUNT(*), COUNT(nv), SUM(nv), MIN(nv), MAX(nv), COUNT(ns), COUNT(nk) FROM t",
    "SELECT nk, COUNT(*), COUNT(nv), SUM(nv) FROM t GROUP BY nk ORDER BY nk",
    "SELECT ns, COUNT(*), MAX(nv) FROM t GROUP BY ns ORDER BY ns",
    "SELECT k, MIN(s), MAX(ns) FROM t GROUP BY k ORDER BY k",
    "SELECT MIN(ns), MAX(s), COUNT(*) FROM t WHERE k > 3",
    "SELECT k, nv FROM t WHERE nv IS NOT NULL AND nv > 990 ORDER BY nv DESC, k LIMIT 10",
    "SELECT COUNT(*) FROM t WHERE nv IS NULL OR ns = 'a'",
    "SELECT nk, SUM(nv) FROM t WHERE k > 30 GROUP BY nk ORDER BY nk",
    "SELECT DISTINCT nk FROM t ORDER BY nk",
    "SELECT d.name, COUNT(t.nv) FROM t JOIN dim d ON t.nk = d.k GROUP BY d.name ORDER BY 1",
]
REAL = [
    "SELECT * FROM t WHERE k = 3 AND v < 0 ORDER BY v, s LIMIT 20",  # x is REAL
    "SELECT k, AVG(v), AVG(x), MIN(x) FROM t GROUP BY k ORDER BY k",
    "SELECT x * 2 + k FROM t WHERE k < 2 ORDER BY x DESC LIMIT 10",
    "SELECT nk, SUM(ny), AVG(ny), MIN(ny), COUNT(ny) FROM t GROUP BY nk ORDER BY nk",
    "SELECT COUNT(*), SUM(ny) FROM t WHERE ny > 5 OR ny IS NULL",
]


def _skip_without_fp64(query):
    if query in REAL and not _fp64():
        pytest.skip("REAL needs fp64 on the device")


@pytest.mark.parametrize("query", INTEGER[:3] + NULLS[:2] + REAL[:2])
def test_agrees_with_duckdb(data, query):
    _skip_without_fp64(query)
    _check(query, data)


@pytest.mark.parametrize("query", INTEGER + NULLS + REAL)
def test_agrees_with_duckdb_on_a_local_cluster(cluster, data, query):
    _skip_without_fp64(query)
    _check(query, data)


def test_refusals_name_the_shape(data):
    _, ddf, dim = data
    with pytest.raises(clq.InvalidInputError, match="HAVING"):
        clq.dask.sql("SELECT k, SUM(v) FROM t GROUP BY k HAVING SUM(v) > 0", tables={"t": ddf})
    with pytest.raises(clq.InvalidInputError, match="neither a GROUP BY key nor one aggregate"):
        clq.dask.sql("SELECT SUM(v) + 1 FROM t", tables={"t": ddf})
    with pytest.raises(clq.InvalidInputError, match="exactly once"):
        clq.dask.sql("SELECT COUNT(*) FROM t a JOIN t b ON a.k = b.k", tables={"t": ddf})
    with pytest.raises(clq.InvalidInputError, match="exactly one Dask DataFrame"):
        clq.dask.sql("SELECT COUNT(*) FROM dim", tables={"dim": dim})
    with pytest.raises(clq.SqlError, match="no column named"):
        clq.dask.sql("SELECT nope FROM t", tables={"t": ddf})


def test_integer_overflow_of_the_combined_sum_is_an_error():
    frame = pd.DataFrame({"v": [2**62, 2**62, 2**62, 2**62]})
    ddf = dd.from_pandas(frame, npartitions=4)
    with pytest.raises(clq.InvalidInputError, match="integer overflow"):
        clq.dask.sql("SELECT SUM(v) FROM t", tables={"t": ddf}, device=_device())
    # Near the limit, inside it: added exactly.
    near = dd.from_pandas(pd.DataFrame({"v": [2**62, 2**62 - 1, -5]}), npartitions=3)
    exact = clq.dask.sql("SELECT SUM(v) FROM t", tables={"t": near}, device=_device())
    assert int(exact.iloc[0, 0]) == 2**63 - 6


def test_worker_processes_each_open_their_own_connection(cluster, data):
    distributed = pytest.importorskip("distributed")
    _check("SELECT k, COUNT(*), SUM(v) FROM t GROUP BY k ORDER BY k", data)
    opened = distributed.get_client().run(lambda: len(clq.dask._connections))
    assert len(opened) == 2
    assert all(count == 1 for count in opened.values()), opened
