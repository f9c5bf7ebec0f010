#!/usr/bin/env python3
"""TPC-H data for clq: the 8 tables at a scale factor, as dbgen's .tbl files
(written by tpchgen-cli) and as clq table files imported from them.

  scripts/tpch_data.sh SF DIR     (or: python3 scripts/tpch_data.py SF DIR)

writes DIR/<table>.tbl and DIR/<table>.clq for region, nation, part,
supplier, partsupp, customer, orders and lineitem. The types are DuckDB's
dbgen types (TPCH_SCHEMAS); DuckDB loads the same .tbl files with them
(duckdb_create_and_load), so clq and DuckDB read identical data.

Module use (tests/python/test_tpch.py, scripts/peers/duckdb_peer.py):
TPCH_SCHEMAS, clq_schema(table), generate_tbl(sf, dir), import_clq(clq, dir),
duckdb_create_and_load(con, dir).

Environment: CLQ_BINARY (default build/clq of this checkout), TPCHGEN_CLI
(default: tpchgen-cli beside this Python, else on PATH).
"""

import concurrent.futures
import os
import shutil
import subprocess
import sys

# The TPC-H tables with DuckDB's dbgen types (keys INT, orderkeys BIGINT so
# that large scale factors fit, money DECIMAL(15,2), dates DATE, flags
# CHAR(1), texts CHAR(n)/VARCHAR(n) of the spec's lengths), in .tbl column
# order.
TPCH_SCHEMAS = {
    "region": [("r_regionkey", "INT"), ("r_name", "CHAR(25)"), ("r_comment", "VARCHAR(152)")],
    "nation": [("n_nationkey", "INT"), ("n_name", "CHAR(25)"), ("n_regionkey", "INT"),
               ("n_comment", "VARCHAR(152)")],
    "part": [("p_partkey", "INT"), ("p_name", "VARCHAR(55)"), ("p_mfgr", "CHAR(25)"),
             ("p_brand", "CHAR(10)"), ("p_type", "VARCHAR(25)"), ("p_size", "INT"),
             ("p_container", "CHAR(10)"), ("p_retailprice", "DECIMAL(15,2)"),
             ("p_comment", "VARCHAR(23)")],
    "supplier": [("s_suppkey", "INT"), ("s_name", "CHAR(25)"), ("s_address", "VARCHAR(40)"),
                 ("s_nationkey", "INT"), ("s_phone", "CHAR(15)"), ("s_acctbal", "DECIMAL(15,2)"),
                 ("s_comment", "VARCHAR(101)")],
    "partsupp": [("ps_partkey", "INT"), ("ps_suppkey", "INT"), ("ps_availqty", "INT"),
                 ("ps_supplycost", "DECIMAL(15,2)"), ("ps_comment", "VARCHAR(199)")],
    "customer": [("c_custkey", "INT"), ("c_name", "VARCHAR(25)"), ("c_address", "VARCHAR(40)"),
                 ("c_nationkey", "INT"), ("c_phone", "CHAR(15)"), ("c_acctbal", "DECIMAL(15,2)"),
                 ("c_mktsegment", "CHAR(10)"), ("c_comment", "VARCHAR(117)")],
    "orders": [("o_orderkey", "BIGINT"), ("o_custkey", "INT"), ("o_orderstatus", "CHAR(1)"),
               ("o_totalprice", "DECIMAL(15,2)"), ("o_orderdate", "DATE"),
               ("o_orderpriority", "CHAR(15)"), ("o_clerk", "CHAR(15)"),
               ("o_shippriority", "INT"), ("o_comment", "VARCHAR(79)")],
    "lineitem": [("l_orderkey", "BIGINT"), ("l_partkey", "INT"), ("l_suppkey", "INT"),
                 ("l_linenumber", "INT"), ("l_quantity", "DECIMAL(15,2)"),
                 ("l_extendedprice", "DECIMAL(15,2)"), ("l_discount", "DECIMAL(15,2)"),
                 ("l_tax", "DECIMAL(15,2)"), ("l_returnflag", "CHAR(1)"),
                 ("l_linestatus", "CHAR(1)"), ("l_shipdate", "DATE"), ("l_commitdate", "DATE"),
                 ("l_receiptdate", "DATE"), ("l_shipinstruct", "CHAR(25)"),
                 ("l_shipmode", "CHAR(10)"), ("l_comment", "VARCHAR(44)")],
}
TABLES = list(TPCH_SCHEMAS)

# The types clq imports in place of those it does not have yet; empty once
# clq has them all (then clq imports TPCH_SCHEMAS as they are).
CLQ_PLACEHOLDERS = {}


def clq_type(sql_type):
    return CLQ_PLACEHOLDERS.get(sql_type, sql_type)


def clq_schema(table):
    """The --schema string of `clq import` for a table."""
    return ", ".join(f"{name} {clq_type(t)}" for name, t in TPCH_SCHEMAS[table])


def duckdb_schema(table):
    return ", ".join(f"{name} {t}" for name, t in TPCH_SCHEMAS[table])


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tpchgen_cli():
    """The tpchgen-cli program, or None."""
    if os.environ.get("TPCHGEN_CLI"):
        return os.environ["TPCHGEN_CLI"]
    beside = os.path.join(os.path.dirname(sys.executable), "tpchgen-cli")
    if os.access(beside, os.X_OK):
        return beside
    return shutil.which("tpchgen-cli")


def generate_tbl(sf, out_dir):
    """Writes the 8 tables at scale factor sf as out_dir/<table>.tbl."""
    program = tpchgen_cli()
    if program is None:
        raise RuntimeError("tpchgen-cli is not installed (pip install tpchgen-cli==4.0.0; "
                           "./scripts/bootstrap.sh test installs it into build/pyenv)")
    os.makedirs(out_dir, exist_ok=True)
    subprocess.run([program, "tbl", "--scale-factor", str(sf), "--output-dir", out_dir],
                   check=True, stdout=subprocess.DEVNULL)
    for table in TABLES:
        path = os.path.join(out_dir, f"{table}.tbl")
        if not os.path.exists(path):
            raise RuntimeError(f"tpchgen-cli wrote no {path}")


def import_clq(clq, tbl_dir, out_dir=None, tables=TABLES):
    """`clq import` of each out_dir/<table>.tbl into <table>.clq, the tables
    in parallel (one process each); returns {table: path}."""
    out_dir = out_dir or tbl_dir

    def one(table):
        out = os.path.join(out_dir, f"{table}.clq")
        done = subprocess.run([clq, "import", "--csv", os.path.join(tbl_dir, f"{table}.tbl"),
                               "--out", out, "--name", table, "--delimiter", "|", "--no-header",
                               "--schema", clq_schema(table)], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"clq import of {table} failed: {done.stderr.strip()}")
        return table, out

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(tables)) as pool:
        return dict(pool.map(one, tables))


def duckdb_create_and_load(con, tbl_dir, tables=TABLES):
    """Creates the tables in a DuckDB connection and loads tbl_dir's .tbl files.
    Each .tbl row ends with '|': the reader takes one more, empty column, which
    is dropped."""
    for table in tables:
        path = os.path.join(tbl_dir, f"{table}.tbl").replace("'", "''")
        columns = TPCH_SCHEMAS[table]
        names = [name for name, _ in columns]
        spec = ", ".join(f"'{name}': '{t}'" for name, t in columns)
        con.execute(f"CREATE OR REPLACE TABLE {table} ({duckdb_schema(table)})")
        con.execute(
            f"INSERT INTO {table} SELECT {', '.join(names)} FROM read_csv('{path}', delim='|', "
            f"header=false, quote='', escape='', null_padding=false, "
            f"columns={{{spec}, 'tbl_end': 'VARCHAR'}})")


def main():
    if len(sys.argv) != 3 or sys.argv[1] in ("-h", "--help"):
        sys.exit("usage: scripts/tpch_data.sh SF DIR\n"
                 "  writes DIR/<table>.tbl (tpchgen-cli) and DIR/<table>.clq (clq import) "
                 "for the 8 TPC-H tables at scale factor SF")
    sf, out_dir = sys.argv[1], sys.argv[2]
    clq = os.environ.get("CLQ_BINARY") or os.path.join(repo_root(), "build", "clq")
    if not os.access(clq, os.X_OK):
        sys.exit(f"no clq program at {clq} (build it, or set CLQ_BINARY)")
    try:
        generate_tbl(sf, out_dir)
        paths = import_clq(clq, out_dir)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        sys.exit(f"tpch_data: {e}")
    for table, path in paths.items():
        print(f"{table}: {path}")


if __name__ == "__main__":
    main()
