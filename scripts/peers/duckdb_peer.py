#!/usr/bin/env python3
"""DuckDB peer of `clq bench`: the same generated Wisconsin rows (the exact
port in wisconsin_data.py, or `clq gen --format csv` files with --csv-dir) and
the same SQL, timed in DuckDB; prints one JSON object on stdout.

Queries and sizes come from a `clq bench --format json` report (--report, so
every query and table size is the one clq ran), or else the thesis suite at
--rows (tenktup2 with 0.6 N rows for the joins, as in clq). A report of
`--suite tpch` names its directory: DuckDB loads the .tbl files beside its
.clq files (scripts/tpch_data.sh writes both), with the same types
(scripts/tpch_data.py), so both read the same rows. A run is
execute + fetchnumpy() of the whole result (the result lands in host arrays,
as clq's does; fetchall() when pandas, which fetchnumpy needs for TEXT, is
missing: the JSON's "fetch" says which), median/min/max over --repeat runs after one warm-up. Tables
are native DuckDB tables loaded before timing. `SET integer_division = true`
gives INTEGER / INTEGER clq's (SQLite's) truncating semantics.

When duckdb or numpy is not importable it prints
{"peer": "duckdb", "status": "skipped", "reason": ...} and exits 0.

--lines prints, instead of JSON, one tab-separated line per result (query,
rows, status, median, min and max ms, error), after a line
"# duckdb VERSION threads N" (or "# skipped REASON"): what `clq bench
--peers duckdb` reads when it runs this script on its own report.

  python3 scripts/peers/duckdb_peer.py --rows 1000000 --repeat 5
  python3 scripts/peers/duckdb_peer.py --report bench.json > duckdb.json
"""

import argparse
import json
import os
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def skipped(reason):
    if "--lines" in sys.argv:
        print(f"# skipped {reason}")
    else:
        print(json.dumps({"peer": "duckdb", "status": "skipped", "reason": reason}))
    sys.exit(0)


try:
    import numpy as np
except ImportError:
    skipped("numpy is not importable")
try:
    import duckdb
except ImportError:
    skipped("duckdb is not importable (pip install duckdb)")

import wisconsin_data as wd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import tpch_data  # noqa: E402

try:  # DuckDB's fetchnumpy() needs pandas for TEXT columns
    import pandas  # noqa: F401
    FETCH = "fetchnumpy"
except ImportError:
    FETCH = "fetchall"


def fetch(con, sql):
    """Runs sql and brings its whole result to the host; returns the row count."""
    result = con.execute(sql)
    if FETCH == "fetchnumpy":
        out = result.fetchnumpy()
        return len(next(iter(out.values()))) if out else 0
    return len(result.fetchall())


def needs_strings(sql):
    """Whether a query reads stringu1, stringu2 or string4 (SELECT * does)."""
    return bool(re.search(r"\bstring(u1|u2|4)\b|select\s+(distinct\s+)?\*|\.\*", sql, re.I))


def parse_rows(text):
    out = []
    for item in text.split(","):
        mult = {"K": 1000, "M": 1000000, "G": 1000000000}.get(item[-1:].upper(), 1)
        out.append(int(item[:-1] if mult > 1 else item) * mult)
    return out


def tpch_dir_of(args):
    """The tpch directory of a --report of the tpch suite, else None."""
    if not args.report:
        return None
    with open(args.report) as f:
        report = json.load(f)
    return report.get("tpch", {}).get("dir")


def load_tpch(con, directory):
    """The 8 TPC-H tables from directory's .tbl files."""
    missing = [t for t in tpch_data.TABLES
               if not os.path.exists(os.path.join(directory, f"{t}.tbl"))]
    if missing:
        sys.exit(f"{directory}: no {missing[0]}.tbl; scripts/tpch_data.sh SF DIR writes the "
                 ".tbl files beside the .clq files DuckDB must read the same rows as")
    tpch_data.duckdb_create_and_load(con, directory)


def cases_from_args(args):
    """[(query id, sql, N, {table: rows})]"""
    if args.report:
        with open(args.report) as f:
            report = json.load(f)
        return [(c["query"], c["sql"], c["rows"], c.get("tables", {})) for c in report["cases"]]
    cases = []
    queries = wd.THESIS_QUERIES
    if args.sql:
        queries = []
        for item in args.sql:
            qid, sep, sql = item.partition("=")
            if not sep or not re.fullmatch(r"[A-Za-z0-9_.-]+", qid) or not sql.strip():
                sys.exit(f"--sql expects ID=SQL with an ID of letters, digits, _ . -, got {item!r}")
            queries.append((qid, sql))
    for n in parse_rows(args.rows):
        for qid, sql in queries:
            tables = {"tenktup1": n}
            if "tenktup2" in sql:
                tables["tenktup2"] = max(1, int(n * wd.THESIS_TENKTUP2_FRACTION))
            for small in ("onektup", "bprime"):  # N/10 rows, as in clq
                if re.search(rf"\b{small}\b", sql, re.I):
                    tables[small] = n // 10
            cases.append((qid, sql, n, tables))
    return cases


def code_sql(column):
    """stringu1/stringu2 in SQL (wisconsin_data.codes): 7 base-26 digits of
    `column`, most significant first, then 'x' to 52 characters."""
    digits = " || ".join(f"chr(65 + CAST(({column} // {26 ** k}) % 26 AS INTEGER))"
                         for k in range(6, -1, -1))
    return f"{digits} || repeat('x', {wd.STRING_WIDTH - 7})"


# The three string columns computed by DuckDB from the integer ones (unique2
# is the row number): numpy's str arrays of them needed about 60 GB at 100M
# rows, DuckDB's own strings a fraction of it.
STRING_COLUMNS_SQL = (
    f"{code_sql('unique1')} AS stringu1, {code_sql('unique2')} AS stringu2, "
    "CASE unique2 % 4 " +
    " ".join(f"WHEN {i} THEN '{c * 4 + 'x' * (wd.STRING_WIDTH - 4)}'" for i, c in enumerate("AHOV")) +
    " END AS string4")


class Data:
    """Native DuckDB tables for one N; tenktup2 is a view onto the variant a query needs."""

    def __init__(self, con, n, csv_dir, strings=True):
        self.con, self.n, self.csv_dir, self.loaded = con, n, csv_dir, set()
        self.strings = strings

    def _load(self, name, rows, n_of_relation, prefix_of=None):
        if name in self.loaded:
            return
        self.con.execute(f"DROP TABLE IF EXISTS {name}")
        if self.csv_dir:
            path = os.path.join(self.csv_dir, f"{name}.csv")
            self.con.execute(f"CREATE TABLE {name} AS SELECT * FROM read_csv_auto('{path}')")
        else:
            columns = wd.int_columns(n_of_relation, np)
            if rows < n_of_relation:
                columns = {k: v[:rows] for k, v in columns.items()}
            self.con.register("source_arrays", columns)
            strings = f", {STRING_COLUMNS_SQL}" if self.strings else ""
            self.con.execute(f"CREATE TABLE {name} AS SELECT *{strings} FROM source_arrays")
            self.con.unregister("source_arrays")
        self.loaded.add(name)

    def prepare(self, tables):
        n = self.n
        self._load("tenktup1", n, n)
        t2 = tables.get("tenktup2", n)
        variant = "tenktup2_full" if t2 >= n else f"tenktup2_{t2}"
        if t2 >= n:
            self._load(variant, n, n)
        else:
            self._load(variant, t2, t2)  # a relation of its own, as in clq
        self.con.execute(f"CREATE OR REPLACE VIEW tenktup2 AS SELECT * FROM {variant}")
        if "onektup" in tables:
            self._load("onektup", n // 10, n // 10)
        if "bprime" in tables:
            self._load("bprime", n // 10, n)  # the first N/10 rows of the N-row relation


def check_strings(n):
    """Exits non-zero unless the SQL string columns equal the numpy port's."""
    con = duckdb.connect()
    Data(con, n, None)._load("t", n, n)
    got = con.execute("SELECT stringu1, stringu2, string4 FROM t ORDER BY unique2").fetchall()
    want = wd.table(n, np)
    for c, name in enumerate(("stringu1", "stringu2", "string4")):
        if [row[c] for row in got] != want[name].tolist():
            sys.exit(f"{name} differs from wisconsin_data.table({n})")
    print(f"string columns of {n} rows agree")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", default="1000000", help="N[,N...] for the thesis suite")
    parser.add_argument("--report", help="take queries and sizes from a clq bench JSON report")
    parser.add_argument("--csv-dir", help="load NAME.csv files from `clq gen` instead")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="DuckDB threads (0: its default)")
    parser.add_argument("--sql", action="append", metavar="ID=SQL",
                        help="run this query (repeatable) at --rows instead of the thesis suite")
    parser.add_argument("--no-strings", action="store_true",
                        help="load only the 13 INT32 columns; queries that read a string column "
                             "or SELECT * are skipped")
    parser.add_argument("--lines", action="store_true",
                        help="print tab-separated lines instead of JSON (for clq bench)")
    parser.add_argument("--check-strings", type=int, metavar="N",
                        help="compare the SQL-built string columns of N rows with "
                             "wisconsin_data.table(N) and exit")
    args = parser.parse_args()
    if args.sql and args.report:
        parser.error("--sql and --report exclude each other")

    if args.check_strings is not None:
        check_strings(args.check_strings)
        return
    con = duckdb.connect()
    # clq follows SQLite: INTEGER / INTEGER truncates; DuckDB's / is REAL by default.
    con.execute("SET integer_division = true")
    if args.threads:
        con.execute(f"SET threads = {args.threads}")
    results, data = [], None
    tpch_dir = tpch_dir_of(args)
    if tpch_dir:
        load_tpch(con, tpch_dir)
    for qid, sql, n, tables in cases_from_args(args):
        if tpch_dir:
            pass  # the TPC-H tables are loaded
        elif data is None or data.n != n:
            data = Data(con, n, args.csv_dir, strings=not args.no_strings)
        record = {"query": qid, "rows": n, "sql": sql}
        if args.no_strings and needs_strings(sql):
            record.update(status="skipped", reason="reads the string columns (--no-strings)")
            results.append(record)
            continue
        try:
            if not tpch_dir:
                data.prepare(tables)
            fetch(con, sql)  # warm-up
            runs = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                result_rows = fetch(con, sql)
                runs.append((time.perf_counter() - start) * 1e3)
            record.update(status="ok", runs_ms=runs, median_ms=statistics.median(runs),
                          min_ms=min(runs), max_ms=max(runs), result_rows=result_rows)
        except Exception as e:  # one failing query must not stop the others
            record.update(status="error", error=str(e))
        results.append(record)
    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    if args.lines:
        print(f"# duckdb {duckdb.__version__} threads {threads}")
        for r in results:
            times = ([f"{r[k]:.6f}" for k in ("median_ms", "min_ms", "max_ms")]
                     if r["status"] == "ok" else ["", "", ""])
            error = " ".join(str(r.get("error", r.get("reason", ""))).split())
            print("\t".join([r["query"], str(r["rows"]), r["status"], *times, error]))
        return
    extra = {"tpch_dir": tpch_dir} if tpch_dir else {}
    print(json.dumps({"peer": "duckdb", "status": "ok", "version": duckdb.__version__, **extra,
                      "threads": threads, "fetch": FETCH, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                      "results": results}, indent=1))


if __name__ == "__main__":
    main()
