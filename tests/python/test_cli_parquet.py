"""`clq query --table t=FILE.parquet`: the CLI reads Parquet through pyarrow
in a Python subprocess ($CLQ_PYTHON); answers against DuckDB reading the
same file, and the messages when Python, pyarrow or the file fail."""

import csv
import io
import math
import os
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import clq

CLQ = os.environ.get("CLQ_BINARY")
pytestmark = pytest.mark.skipif(not CLQ, reason="CLQ_BINARY names the clq program (ctest sets it)")


def _clq(args, python=sys.executable):
    env = dict(os.environ, CLQ_PYTHON=python)
    device = os.environ.get("CLQ_TEST_DEVICES")
    if device:
        args = ["--device", device] + args
    return subprocess.run([CLQ, "query", "--rows", "1000", "--format", "csv"] + args,
                          capture_output=True, text=True, env=env)


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    path = tmp_path_factory.mktemp("pq") / "sales.parquet"
    n = 3000
    table = pa.table({
        "region": pa.array([["north", "south", "east", "west"][i % 4] for i in range(n)]).dictionary_encode(),
        "units": pa.array([(i * 7919) % 101 - 50 for i in range(n)], pa.int16()),
        "amount": pa.array([(i * 104729) % 1000003 * 1000 for i in range(n)], pa.int64()),
        "ok": pa.array([i % 3 == 0 for i in range(n)]),
    })
    pq.write_table(table, path, row_group_size=1000)  # three row groups: three chunks
    return str(path)


def test_parquet_table_agrees_with_duckdb(parquet):
    query = ("SELECT region, COUNT(*), SUM(units), MAX(amount), SUM(ok) FROM t "
             "WHERE units > -20 GROUP BY region ORDER BY region")
    out = _clq(["--table", f"t={parquet}", query])
    assert out.returncode == 0, out.stderr
    rows = list(csv.reader(io.StringIO(out.stdout)))[1:]
    expected = duckdb.sql(query.replace("FROM t", f"FROM read_parquet('{parquet}')")
                          .replace("SUM(ok)", "SUM(ok::INTEGER)")).fetchall()
    assert [tuple(r) for r in rows] == [tuple(str(v) for v in e) for e in expected]


def test_parquet_messages(parquet, tmp_path):
    nulls = tmp_path / "nulls.parquet"
    pq.write_table(pa.table({"x": [1.5, None], "s": ["a", None], "n": [None, None]}), nulls)
    device = clq.connect(os.environ.get("CLQ_TEST_DEVICES") or None).device
    if any(d["fp64"] for d in clq.devices() if d["name"] == device):  # x is REAL
        out = _clq(["--table", f"t={nulls}", "SELECT COUNT(*), COUNT(x), SUM(x), COUNT(n) FROM t"])
        assert out.returncode == 0, out.stderr
        assert list(csv.reader(io.StringIO(out.stdout)))[1:] == [["2", "1", "1.5", "0"]]
    out = _clq(["--table", f"t={nulls}", "SELECT COUNT(*), COUNT(s), COUNT(n) FROM t"])
    assert out.returncode == 0, out.stderr
    assert list(csv.reader(io.StringIO(out.stdout)))[1:] == [["2", "1", "0"]]
    nan = tmp_path / "nan.parquet"
    pq.write_table(pa.table({"x": [1.5, float("nan")]}), nan)
    out = _clq(["--table", f"t={nan}", "SELECT COUNT(*) FROM t"])
    assert out.returncode != 0 and "column 'x', row 2: NaN" in out.stderr
    out = _clq(["--table", f"t={parquet}", "SELECT 1"], python="/nonexistent/python3")
    assert out.returncode != 0 and "set CLQ_PYTHON" in out.stderr
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet at all")
    out = _clq(["--table", f"t={bad}", "SELECT 1"])
    assert out.returncode != 0 and "pyarrow could not read the Parquet file" in out.stderr
    times = tmp_path / "times.parquet"
    pq.write_table(pa.table({"d": pa.array([1], pa.timestamp("us"))}), times)
    out = _clq(["--table", f"t={times}", "SELECT 1"])
    assert out.returncode != 0 and "(timestamp)" in out.stderr
