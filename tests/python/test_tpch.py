"""The 22 TPC-H queries (tests/tpch/queries) at SF 0.01 on every device under
test, against DuckDB on the same .tbl files (tpchgen-cli), loaded with the
same types (scripts/tpch_data.py). clq reads the tables as `clq import`
writes them ($CLQ_BINARY), and runs each query through `clq query --format
json`.

A query of SUPPORTED must agree with DuckDB: integers, strings, dates and
decimals equal, REAL within 1e-9 relative; its ORDER BY keys in DuckDB's
order (rows tied on them in any order). Every other query must be refused:
exit status 1 and one `clq: error:` message, so that a query that starts
working (move it into SUPPORTED) or starts crashing shows. On a device
without fp64 a supported query whose answer holds a REAL value may be
refused for it instead.

Also: every table as clq imported it equals DuckDB's reading of the same
.tbl file; a few probe queries clq runs today check the harness end to end;
and `clq bench --suite tpch` reports each query ok or refused."""

import datetime
import decimal
import json
import math
import os
import subprocess
import sys

import pytest

import clq

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUERY_DIR = os.path.join(ROOT, "tests", "tpch", "queries")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import tpch_data  # noqa: E402

SF = "0.01"
QUERIES = [f"q{n:02d}" for n in range(1, 23)]

# Queries expected to agree with DuckDB on every device (the others must be
# refused with a clear error).
SUPPORTED = {
    "q01", "q02", "q03", "q04", "q05", "q06", "q07", "q08", "q09", "q10", "q11", "q12", "q13", "q14",
    "q15", "q16", "q17", "q18", "q19", "q20", "q21", "q22",
}

# The result columns (0-based) of each query's ORDER BY, in order; a query
# without one (a single row) is absent.
ORDER_KEYS = {
    "q01": [0, 1], "q02": [0, 2, 1, 3], "q03": [1, 2], "q04": [0], "q05": [1], "q07": [0, 1, 2],
    "q08": [0], "q09": [0, 1], "q10": [2], "q11": [1], "q12": [0], "q13": [1, 0], "q15": [0],
    "q16": [3, 0, 1, 2], "q18": [4, 3], "q20": [0], "q21": [1, 0], "q22": [0],
}

# Queries on the TPC-H tables that clq runs today, checking the harness end to
# end (import, types, the comparison) while SUPPORTED is short: id -> (SQL,
# ORDER BY keys). Dates are compared with strings, which DuckDB casts.
PROBES = {
    "p1_q1_shape": (
        "select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, "
        "sum(l_extendedprice) as sum_base_price, avg(l_discount) as avg_disc, "
        "count(*) as count_order from lineitem where l_shipdate <= '1998-09-02' "
        "group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus", [0, 1]),
    "p2_join_group": (
        "select n_name, count(*) as customers, sum(c_acctbal) as balance from customer, nation "
        "where c_nationkey = n_nationkey group by n_name order by n_name", [0]),
    "p3_topk": (
        "select o_orderkey, o_totalprice, o_orderdate, o_orderpriority from orders "
        "where o_custkey < 100 order by o_totalprice desc limit 20", [1]),
}

# While clq imports DECIMAL as DOUBLE, its decimals are REAL values.
DECIMAL_IS_REAL = any(t.startswith("DECIMAL") for t in tpch_data.CLQ_PLACEHOLDERS)


def _selectors():
    chosen = os.environ.get("CLQ_TEST_DEVICES")
    if chosen:
        return [chosen]
    return [d["selector"] for d in clq.devices()]


def _fp64(selector):
    name = clq.connect(selector).device
    return any(d["fp64"] for d in clq.devices() if d["name"] == name)


@pytest.fixture(scope="session")
def tpch(tmp_path_factory):
    """SF 0.01 once: the .tbl files, clq's table files, and DuckDB loaded."""
    duckdb = pytest.importorskip("duckdb")
    if tpch_data.tpchgen_cli() is None:
        pytest.skip("tpchgen-cli is not installed (./scripts/bootstrap.sh test installs "
                    "tpchgen-cli==4.0.0 into build/pyenv)")
    binary = os.environ.get("CLQ_BINARY")
    if not binary or not os.access(binary, os.X_OK):
        pytest.skip("CLQ_BINARY names no clq program (ctest's python entry sets it)")
    directory = str(tmp_path_factory.mktemp("tpch"))
    tpch_data.generate_tbl(SF, directory)
    tables = tpch_data.import_clq(binary, directory)
    peer = duckdb.connect()
    tpch_data.duckdb_create_and_load(peer, directory)
    return binary, tables, peer


def _run_clq(binary, tables, selector, sql_file=None, sql=None):
    args = [binary, "query", "--device", selector, "--format", "json"]
    args += ["-f", sql_file] if sql_file else [sql]
    for name, path in tables.items():
        args += ["--table", f"{name}={path}"]
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def _rows(stdout):
    """clq's JSON rows as tuples (pairs keep columns of one name apart; numbers
    with a fraction as Decimal, exactly as written)."""
    records = json.loads(stdout, parse_float=decimal.Decimal, object_pairs_hook=list)
    return [tuple(v for _, v in record) for record in records]


def _same(expected, actual):
    """One DuckDB value against one clq value."""
    if expected is None or actual is None:
        return expected is None and actual is None
    if isinstance(expected, bool):
        return actual in (expected, int(expected))
    if isinstance(expected, (datetime.date, datetime.datetime)):
        return actual == expected.isoformat()
    if isinstance(expected, float) or (isinstance(expected, decimal.Decimal) and DECIMAL_IS_REAL):
        if isinstance(actual, str) or isinstance(actual, bool):
            return False
        return math.isclose(float(expected), float(actual), rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(expected, decimal.Decimal) and isinstance(actual, str):
        try:  # a decimal written as a JSON string
            return decimal.Decimal(actual) == expected
        except decimal.InvalidOperation:
            return False
    if isinstance(expected, (int, decimal.Decimal)):
        return not isinstance(actual, (str, bool)) and decimal.Decimal(actual) == expected
    return expected == actual


def _assert_agree(query, expected, actual, keys):
    assert len(actual) == len(expected), f"{query}: {len(actual)} rows, DuckDB {len(expected)}"
    for e, a in zip(expected, actual):
        assert len(a) == len(e), f"{query}: {len(a)} columns, DuckDB {len(e)}"
    if keys:
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert all(_same(e[k], a[k]) for k in keys), \
                f"{query} row {i}: ORDER BY keys {[a[k] for k in keys]}, DuckDB {[e[k] for k in keys]}"
    # Rows tied on the ORDER BY keys may come in any order: each of DuckDB's
    # rows must match one of clq's (values need not be textually equal, so
    # the rows are matched, not sorted).
    if all(_same(x, y) for e, a in zip(expected, actual) for x, y in zip(e, a)):
        return
    unmatched = list(actual)
    for e in expected:
        match = next((i for i, a in enumerate(unmatched)
                      if all(_same(x, y) for x, y in zip(e, a))), None)
        assert match is not None, f"{query}: DuckDB's row {e} is not in clq's answer"
        unmatched.pop(match)


@pytest.mark.parametrize("selector", _selectors())
@pytest.mark.parametrize("query", QUERIES)
def test_tpch_query(tpch, selector, query):
    binary, tables, peer = tpch
    sql_file = os.path.join(QUERY_DIR, f"{query}.sql")
    result = _run_clq(binary, tables, selector, sql_file)
    output = result.stdout + result.stderr
    assert result.returncode in (0, 1), \
        f"{query} on {selector}: exit status {result.returncode} (a crash?)\n{output[-2000:]}"
    expected = None
    if query in SUPPORTED or result.returncode == 0:
        with open(sql_file) as f:
            expected = peer.execute(f.read()).fetchall()
    if query in SUPPORTED:
        _expect_agreement(query, selector, result, expected)
        return
    if result.returncode == 0:
        try:
            _assert_agree(query, expected, _rows(result.stdout), ORDER_KEYS.get(query))
            verdict = "and agrees with DuckDB: move it into SUPPORTED"
        except AssertionError as e:
            verdict = f"and DISAGREES with DuckDB: {e}"
        pytest.fail(f"{query} on {selector} is not in SUPPORTED but ran {verdict}")
    lines = result.stderr.strip().splitlines()
    assert lines and lines[0].startswith("clq: error: "), output


# Each table's key columns, which order its rows.
TABLE_KEYS = {
    "region": ["r_regionkey"], "nation": ["n_nationkey"], "part": ["p_partkey"],
    "supplier": ["s_suppkey"], "partsupp": ["ps_partkey", "ps_suppkey"],
    "customer": ["c_custkey"], "orders": ["o_orderkey"],
    "lineitem": ["l_orderkey", "l_linenumber"],
}


@pytest.mark.parametrize("selector", _selectors())
@pytest.mark.parametrize("table", tpch_data.TABLES)
def test_tpch_table_imports_whole(tpch, selector, table):
    """Every value of every table as clq imported it equals DuckDB's reading
    of the same .tbl file (strings verbatim, with their spaces)."""
    binary, tables, peer = tpch
    columns = ", ".join(name for name, _ in tpch_data.TPCH_SCHEMAS[table])
    sql = f"select {columns} from {table} order by {', '.join(TABLE_KEYS[table])}"
    result = _run_clq(binary, tables, selector, sql=sql)
    keys = list(range(len(TABLE_KEYS[table])))
    _expect_agreement(table, selector, result, peer.execute(sql).fetchall(), keys)


@pytest.mark.parametrize("selector", _selectors())
def test_tpch_select_star_keeps_types(tpch, selector):
    """SELECT * gives DATE and DECIMAL columns as dates and decimals (not as
    their stored days and scaled integers)."""
    binary, tables, peer = tpch
    sql = "select * from orders order by o_orderkey limit 5"
    result = _run_clq(binary, tables, selector, sql=sql)
    _expect_agreement("orders", selector, result, peer.execute(sql).fetchall(), [0])


@pytest.mark.parametrize("selector", _selectors())
@pytest.mark.parametrize("probe", sorted(PROBES))
def test_tpch_probe(tpch, selector, probe):
    binary, tables, peer = tpch
    sql, keys = PROBES[probe]
    result = _run_clq(binary, tables, selector, sql=sql)
    assert result.returncode in (0, 1), \
        f"{probe} on {selector}: exit status {result.returncode}\n{result.stderr[-2000:]}"
    _expect_agreement(probe, selector, result, peer.execute(sql).fetchall(), keys)


def _expect_agreement(query, selector, result, expected, keys=None):
    keys = keys if keys is not None else ORDER_KEYS.get(query)
    output = result.stdout + result.stderr
    # A device without fp64 refuses REAL expressions by name (an answer that
    # happens to hold no REAL, as Q17's NULL at SF 0.01, may still need one).
    if result.returncode == 1 and not _fp64(selector) and "fp64" in result.stderr:
        pytest.skip(f"{query}: REAL values, which {selector} (no fp64) refuses")
    # A device that caps its loops (llvmpipe) refuses long expression programs
    # (Q19's WHERE) by name rather than cut them short.
    if result.returncode == 1 and "caps a work-item's loops" in result.stderr:
        pytest.skip(f"{query}: an expression program too long for {selector}'s loop cap")
    assert result.returncode == 0, f"{query} on {selector}:\n{output[-2000:]}"
    _assert_agree(query, expected, _rows(result.stdout), keys)


@pytest.mark.parametrize("selector", _selectors())
def test_tpch_bench_suite(tpch, selector):
    """`clq bench --suite tpch` on the same tables, DuckDB in the same run:
    every query of SUPPORTED runs, every other one is reported refused, none
    fails the run, and DuckDB ran each."""
    binary, tables, _ = tpch
    directory = os.path.dirname(tables["lineitem"])
    result = subprocess.run(
        [binary, "bench", "--devices", selector, "--suite", "tpch", "--tpch-dir", directory,
         "--sf", SF, "--repeat", "1", "--peers", "duckdb", "--duckdb-threads", "1", "--check",
         "none", "--format", "json"],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "CLQ_PYTHON": sys.executable})
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["suite"] == "tpch" and report["tpch"]["sf"] == SF
    assert [c["query"] for c in report["cases"]] == [f"Q{n}" for n in range(1, 23)]
    for case in report["cases"]:
        query = f"q{int(case['query'][1:]):02d}"
        with open(os.path.join(QUERY_DIR, f"{query}.sql")) as f:
            assert f.read().startswith(case["sql"])
        assert case["peers"]["duckdb"]["status"] == "ok", case["peers"]["duckdb"]
        (device,) = case["devices"]
        if query in SUPPORTED:
            assert device["status"] == "ok" or (
                "fp64" in device.get("error", "") and not _fp64(selector)) or (
                "caps a work-item's loops" in device.get("error", "")), (query, device)
        else:
            assert device["status"] == "refused" and device["error"], (query, device)
