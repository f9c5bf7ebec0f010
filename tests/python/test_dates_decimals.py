"""DATE and DECIMAL(p, s), registered from pyarrow (date32, decimal128) and
queried by clq and by DuckDB on the same data: literals, comparisons,
BETWEEN and IN with exact decimal constants, INTERVAL arithmetic, EXTRACT,
decimal sums, products, quotients and averages, GROUP BY and ORDER BY on
them, NULLs, and the types results come back in (datetime.date and
decimal.Decimal from fetchall, date32 and decimal128 through Arrow).
Integers and decimals must be identical, REAL within 1e-9 relative."""

import datetime
import decimal
import random

import duckdb
import pyarrow as pa
import pytest

import clq

from agree import assert_same_rows

EPOCH = datetime.date(1970, 1, 1)


def _maybe(rng, value, share):
    return None if rng.random() < share else value


def _table(rows=5000, seed=31):
    rng = random.Random(seed)
    days = [rng.randrange(-1000, 20000) for _ in range(rows)]
    # Dates around the ends of months and leap days, where EXTRACT and
    # month arithmetic are easiest to get wrong.
    days[:8] = [
        (datetime.date(y, m, d) - EPOCH).days
        for y, m, d in [(2000, 2, 29), (1900, 3, 1), (1969, 12, 31), (1970, 1, 1),
                        (1996, 12, 31), (2024, 2, 29), (1999, 1, 31), (1960, 6, 15)]
    ]
    price = [decimal.Decimal(rng.randrange(-10**9, 10**9)) / 100 for _ in range(rows)]
    rate = [decimal.Decimal(rng.randrange(0, 11)) / 100 for _ in range(rows)]
    qty = [decimal.Decimal(rng.randrange(1, 51)) for _ in range(rows)]
    fine = [decimal.Decimal(rng.randrange(-10**12, 10**12)) / 10**4 for _ in range(rows)]
    return pa.table(
        {
            "k": pa.array([rng.randrange(0, 7) for _ in range(rows)], pa.int32()),
            "d": pa.array([EPOCH + datetime.timedelta(days=x) for x in days], pa.date32()),
            "dn": pa.array(
                [_maybe(rng, EPOCH + datetime.timedelta(days=x), 0.3) for x in days], pa.date32()
            ),
            "price": pa.array(price, pa.decimal128(15, 2)),
            "rate": pa.array(rate, pa.decimal128(15, 2)),
            "qty": pa.array(qty, pa.decimal128(15, 2)),
            "fine": pa.array([_maybe(rng, f, 0.2) for f in fine], pa.decimal128(18, 4)),
            "i": pa.array([rng.randrange(-1000, 1000) for _ in range(rows)], pa.int64()),
        }
    )


EXACT_QUERIES = [
    # DATE
    "SELECT COUNT(*) FROM t WHERE d >= DATE '1994-01-01' AND d < DATE '1994-01-01' + INTERVAL '1' YEAR",
    "SELECT COUNT(*) FROM t WHERE d <= DATE '1998-12-01' - INTERVAL '90' DAY",
    "SELECT COUNT(*) FROM t WHERE d BETWEEN DATE '1995-03-15' AND DATE '1995-03-15' + INTERVAL '3' MONTH",
    "SELECT COUNT(*) FROM t WHERE d IN (DATE '2000-02-29', DATE '1970-01-01', DATE '1969-12-31')",
    "SELECT COUNT(*), COUNT(dn) FROM t WHERE dn > DATE '1980-05-05' OR dn IS NULL",
    "SELECT MIN(d), MAX(d), MIN(dn), MAX(dn) FROM t",
    "SELECT k, MIN(d), MAX(dn), COUNT(dn) FROM t GROUP BY k",
    "SELECT d, k FROM t ORDER BY d DESC, k LIMIT 20",
    "SELECT EXTRACT(YEAR FROM d), COUNT(*) FROM t GROUP BY EXTRACT(YEAR FROM d)",
    "SELECT d, EXTRACT(YEAR FROM d), EXTRACT(MONTH FROM d), EXTRACT(DAY FROM d) FROM t",
    "SELECT EXTRACT(MONTH FROM dn), COUNT(*) FROM t GROUP BY EXTRACT(MONTH FROM dn)",
    "SELECT d - DATE '1970-01-01', d + 30, d - 1 FROM t WHERE k = 3",
    "SELECT COUNT(*) FROM t WHERE d + 10 > DATE '1990-01-01' + INTERVAL '7' DAY",
    "SELECT COUNT(*) FROM t WHERE d > '1999-06-30'",
    # DECIMAL
    "SELECT SUM(price), SUM(qty), MIN(price), MAX(price), SUM(fine) FROM t",
    "SELECT k, SUM(price * (1 - rate)), SUM(price * (1 - rate) * (1 + rate)) FROM t GROUP BY k",
    "SELECT SUM(price * rate) FROM t WHERE rate BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND qty < 24",
    "SELECT COUNT(*) FROM t WHERE rate = 0.05 OR rate > 0.095",
    "SELECT COUNT(*) FROM t WHERE price > 1000 AND price <= 250000.5",
    "SELECT COUNT(*) FROM t WHERE qty IN (1, 2.00, 3.5, 24)",
    "SELECT COUNT(*) FROM t WHERE fine > price",
    "SELECT price + fine, price - qty, -price, price * 2, i * rate FROM t WHERE k = 1",
    # CASE over DECIMAL and DATE branches: one scale (INTEGER branches scaled)
    "SELECT k, SUM(CASE WHEN rate > 0.05 THEN price * (1 - rate) ELSE 0 END) FROM t GROUP BY k",
    "SELECT CASE WHEN k < 3 THEN fine WHEN k < 5 THEN price ELSE i END FROM t WHERE k <> 6",
    "SELECT k, MAX(CASE WHEN k = 2 THEN d ELSE dn END), MIN(CASE k WHEN 1 THEN dn END) FROM t GROUP BY k",
    "SELECT COUNT(*) FROM t WHERE CASE rate WHEN 0.05 THEN qty WHEN 0.1 THEN 2 ELSE 0 END > 1.5",
    "SELECT price % 7, i + price FROM t WHERE k = 2",
    "SELECT k, SUM(fine), COUNT(fine), MIN(fine), MAX(fine) FROM t GROUP BY k",
    "SELECT rate, COUNT(*), SUM(qty) FROM t GROUP BY rate",
    "SELECT price, qty FROM t ORDER BY price DESC LIMIT 15",
    "SELECT CAST(price AS INTEGER), CAST(rate AS DECIMAL(15,4)), CAST(fine AS DECIMAL(18,1)) FROM t WHERE k = 4",
    "SELECT CAST(i AS DECIMAL(10,2)) + price FROM t WHERE k = 5",
    "SELECT SUM(price) FROM t HAVING SUM(price) > 0.5",
]
# REAL results: AVG, quotients, and DECIMAL mixed with a REAL.
REAL_QUERIES = [
    "SELECT AVG(price), AVG(qty), AVG(rate), AVG(fine) FROM t",
    "SELECT k, AVG(price), AVG(fine) FROM t GROUP BY k",
    "SELECT price / qty, price / 3, 100.00 * price / fine FROM t WHERE k = 6 AND fine <> 0",
    "SELECT 100.00 * SUM(price * rate) / SUM(price) FROM t WHERE price > 0",
    "SELECT price * 1.5e0, CAST(price AS DOUBLE) FROM t WHERE k = 0",
]


def _peer(table):
    peer = duckdb.connect()
    peer.register("t", table)
    return peer


@pytest.mark.parametrize("query", EXACT_QUERIES + REAL_QUERIES)
def test_dates_and_decimals_agree_with_duckdb(con, query):
    if query in REAL_QUERIES and not con.fp64:
        pytest.skip("REAL needs fp64 on the device")
    t = _table()
    con.register("t", t)
    expected = _peer(t).sql(query).fetchall()
    actual = con.sql(query).fetchall()
    ordered = "ORDER BY" in query
    assert_same_rows(expected, actual, ordered=ordered)
    if query in EXACT_QUERIES:  # each column's Python types (NULLs aside) as DuckDB's
        for c in range(len(expected[0]) if expected else 0):
            e_types = {type(row[c]) for row in expected if row[c] is not None}
            a_types = {type(row[c]) for row in actual if row[c] is not None}
            assert e_types == a_types, (query, c, e_types, a_types)


def test_results_carry_their_types(con):
    t = _table(rows=50)
    con.register("t", t)
    result = con.sql("SELECT d, price, SUM(fine) AS f FROM t GROUP BY d, price ORDER BY d LIMIT 3")
    out = pa.table(result)
    assert out.schema.field("d").type == pa.date32()
    assert out.schema.field("price").type == pa.decimal128(15, 2)
    assert pa.types.is_decimal(out.schema.field("f").type)
    assert out.schema.field("f").type.scale == 4
    rows = con.sql("SELECT DATE '2024-02-29', MIN(price) FROM t").fetchall()
    assert rows[0][0] == datetime.date(2024, 2, 29)
    assert isinstance(rows[0][1], decimal.Decimal)


@pytest.mark.parametrize(
    "query, message",
    [
        ("SELECT SUM(d) FROM t", "SUM of DATE"),
        ("SELECT d * 2 FROM t", "cannot apply '\\*' to DATE"),
        ("SELECT COUNT(*) FROM t WHERE d = 5", "cannot compare DATE and INTEGER"),
        ("SELECT COUNT(*) FROM t WHERE d > '1999-02-30'", "not a date"),
        ("SELECT d + INTERVAL '1' MONTH FROM t", "constant dates"),
        ("SELECT price * fine * fine * fine * fine * fine FROM t", "at most 18"),
        ("SELECT price * price * price * price FROM t", "overflow"),
        ("SELECT CAST(d AS INTEGER) FROM t", "CAST of DATE"),
        ("SELECT DATE '1999-13-01'", "not a date"),
    ],
)
def test_type_errors_are_clear(con, query, message):
    import clq

    con.register("t", _table(rows=10))
    with pytest.raises(clq.Error, match=message):
        con.sql(query).fetchall()
