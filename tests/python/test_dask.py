"""clq.dask against DuckDB on the whole data: partial queries on partitions
(some of them empty after the WHERE), combined in Dask; joins with a
broadcast table; top-k; the refusals; and worker processes, each with its
own connection."""

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
    frame = pd.DataFrame(
        {
            "k": rng.integers(0, 40, n),
            "v": rng.integers(-(2**40), 2**40, n),
            "x": rng.random(n) * 1e6,
            "s": rng.choice(["apple", "pear", "fig"], n),
        }
    )
    # Sorted by k, so that a filter on k empties whole partitions.
    frame = frame.sort_values("k", kind="stable").reset_index(drop=True)
    dim = pd.DataFrame({"k": np.arange(0, 40, 3), "name": [f"n{i}" for i in range(0, 40, 3)]})
    return frame, dd.from_pandas(frame, npartitions=7), dim


def _check(query, data, ordered=True):
    frame, ddf, dim = data
    got = clq.dask.sql(query, tables={"t": ddf, "dim": dim}, device=_device())
    peer = duckdb.connect()
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
]
REAL = [
    "SELECT * FROM t WHERE k = 3 AND v < 0 ORDER BY v, s LIMIT 20",  # x is REAL
    "SELECT k, AVG(v), AVG(x), MIN(x) FROM t GROUP BY k ORDER BY k",
    "SELECT x * 2 + k FROM t WHERE k < 2 ORDER BY x DESC LIMIT 10",
]


@pytest.mark.parametrize("query", INTEGER + REAL)
def test_agrees_with_duckdb(data, query):
    if query in REAL and not _fp64():
        pytest.skip("REAL needs fp64 on the device")
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


def test_worker_processes_each_open_their_own_connection(data):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        _check("SELECT k, COUNT(*), SUM(v) FROM t GROUP BY k ORDER BY k", data)
