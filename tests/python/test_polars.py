"""Polars frames registered with clq and clq results read by Polars.

Polars exports through `__arrow_c_stream__` its own Arrow types: strings as
string views ("vu"), categoricals and enums as dictionaries of string views
with uint32 or uint8 indices, and NULLs as validity bitmaps. The queries
run on clq and on DuckDB over the same data (DuckDB reads the frame's
`to_arrow()`); rows are compared unordered, as DuckDB puts NULL last in
ascending order and SQLite, whose semantics clq has, first."""

import random

import duckdb
import pyarrow as pa
import pytest

import clq
from agree import assert_same_rows

pl = pytest.importorskip("polars")



def _maybe(rng, value, share=0.3):
    return None if rng.random() < share else value


def _frame(rows=3000, seed=5):
    """Integers, floats and strings (short ones inline in their views, long
    ones in data buffers, the empty string) with about 30% NULL, a
    categorical and an enum with NULLs, and a column of nothing but NULLs."""
    rng = random.Random(seed)
    words = ["fig", "", "pear", "a string longer than twelve bytes", "kiwi", "twelve bytes"]
    colours = ["red", "green", "blue"]
    return pl.DataFrame(
        {
            "k": pl.Series([_maybe(rng, rng.randrange(-15, 15)) for _ in range(rows)], dtype=pl.Int32),
            "v": pl.Series(
                [_maybe(rng, rng.randrange(-(2**40), 2**40)) for _ in range(rows)], dtype=pl.Int64
            ),
            "small": pl.Series([_maybe(rng, rng.randrange(0, 200)) for _ in range(rows)], dtype=pl.UInt8),
            "x": pl.Series([_maybe(rng, rng.uniform(-1e3, 1e3)) for _ in range(rows)], dtype=pl.Float64),
            "s": pl.Series([_maybe(rng, rng.choice(words)) for _ in range(rows)], dtype=pl.String),
            "c": pl.Series([_maybe(rng, rng.choice(colours)) for _ in range(rows)], dtype=pl.Categorical),
            "e": pl.Series([_maybe(rng, rng.choice(colours)) for _ in range(rows)], dtype=pl.Enum(colours)),
            "nothing": pl.Series([None] * rows, dtype=pl.Int64),
        }
    )


INTEGER_QUERIES = [
    "SELECT COUNT(*), COUNT(k), COUNT(v), COUNT(small), COUNT(s), COUNT(nothing) FROM t",
    "SELECT SUM(k), SUM(v), MIN(v), MAX(v), SUM(small), MAX(small), SUM(nothing) FROM t",
    "SELECT k, COUNT(*), COUNT(v), SUM(v), MIN(small) FROM t GROUP BY k",
    "SELECT s, COUNT(*), SUM(k) FROM t GROUP BY s",
    "SELECT c, e, COUNT(*), COUNT(k) FROM t GROUP BY c, e",
    "SELECT COUNT(*) FROM t WHERE s IS NULL OR c IS NULL",
    "SELECT k, v, s FROM t WHERE k > 10 AND small < 40",
    "SELECT k, s, c FROM t WHERE s = 'a string longer than twelve bytes' AND k < 0",
    "SELECT k, s FROM t WHERE s = '' OR e = 'blue' AND k IS NULL",
    "SELECT DISTINCT s FROM t",
    "SELECT DISTINCT c FROM t",
]
REAL_QUERIES = [
    "SELECT COUNT(x) FROM t",
    "SELECT k, SUM(x), MIN(x), MAX(x), AVG(x) FROM t GROUP BY k",
    "SELECT COUNT(*), AVG(small), SUM(x) FROM t WHERE x > 0 OR x IS NULL",
]


def _agree(con, query, frames):
    peer = duckdb.connect()
    for name, frame in frames.items():
        con.register(name, frame)
        peer.register(name, frame.to_arrow())
    assert_same_rows(peer.sql(query).fetchall(), con.sql(query).fetchall(), ordered=False)


@pytest.mark.parametrize("query", INTEGER_QUERIES + REAL_QUERIES)
def test_polars_frame_agrees_with_duckdb(con, query):
    if query in REAL_QUERIES and not con.fp64:
        pytest.skip("REAL needs fp64 on the device")
    _agree(con, query, {"t": _frame()})


def test_lazy_frame_collected(con):
    lazy = _frame().lazy().filter(pl.col("k") > 0).with_columns(w=pl.col("v") + pl.col("k"))
    # A LazyFrame is a plan, not data: it has no Arrow export to register.
    assert not hasattr(lazy, "__arrow_c_stream__")
    with pytest.raises(TypeError, match="LazyFrame.*collect"):
        con.register("lazy", lazy)
    _agree(con, "SELECT k, COUNT(*), SUM(w), COUNT(w) FROM t GROUP BY k", {"t": lazy.collect()})


def test_frame_of_several_chunks(con):
    parts = [_frame(rows=700, seed=s) for s in (1, 2, 3)]
    frame = pl.concat(parts, rechunk=False)
    assert frame.n_chunks() == 3
    for query in (
        "SELECT COUNT(*), COUNT(k), SUM(v), COUNT(s) FROM t",
        "SELECT c, s, COUNT(*), SUM(k) FROM t GROUP BY c, s",
        "SELECT k, v, s, e FROM t WHERE small > 190",
    ):
        _agree(con, query, {"t": frame})


def test_join_on_nullable_keys(con):
    rng = random.Random(9)
    keys = pl.DataFrame(
        {
            "k": pl.Series([_maybe(rng, key) for key in range(-15, 15, 2)], dtype=pl.Int64),
            "label": [_maybe(rng, f"label {key}") for key in range(-15, 15, 2)],
        }
    )
    frames = {"t": _frame(), "u": keys}
    _agree(con, "SELECT a.k, b.label, COUNT(*), SUM(a.v) FROM t a JOIN u b ON a.k = b.k "
           "GROUP BY a.k, b.label", frames)
    _agree(con, "SELECT COUNT(*) FROM t a JOIN u b ON a.k = b.k WHERE b.label IS NULL", frames)


def _as_frame(read):
    """A DataFrame from what Polars made of a clq result: a Arrow C stream
    does not say whether it holds a table or a column of structs, and
    `pl.from_arrow` takes it for a struct Series."""
    if isinstance(read, pl.Series):
        assert read.dtype == pl.Struct
        return read.struct.unnest()
    return read


def test_polars_reads_clq_results(con):
    frame = pl.DataFrame(
        {
            "i": pl.Series([1, None, 3, None, 5], dtype=pl.Int64),
            "s": ["a", None, "", "a string longer than twelve bytes", None],
            "c": pl.Series(["x", "y", None, "x", "y"], dtype=pl.Categorical),
        }
    )
    con.register("p", frame)
    query = "SELECT i, s, c, i * 2 AS twice FROM p"
    expected = {
        "i": [1, None, 3, None, 5],
        "s": ["a", None, "", "a string longer than twelve bytes", None],
        "c": ["x", "y", None, "x", "y"],
        "twice": [2, None, 6, None, 10],
    }
    for read in (pl.DataFrame, pl.from_arrow, lambda r: pl.from_arrow(pa.table(r))):
        out = _as_frame(read(con.sql(query)))
        assert out.columns == ["i", "s", "c", "twice"]
        assert out.schema["i"] == pl.Int64 and out.schema["s"] == pl.String
        assert out.to_dict(as_series=False) == expected
        assert out["i"].null_count() == 2
    empty = pl.DataFrame(con.sql("SELECT i, s FROM p WHERE i > 100"))
    assert empty.shape == (0, 2)


def test_what_clq_cannot_store_is_refused_by_name(con):
    import datetime

    times = pl.DataFrame({"at": [datetime.datetime(2024, 1, 1, 12), None], "n": [1, 2]})
    with pytest.raises(clq.InvalidInputError, match=r"'at' has the Arrow type 'ts.*' \(timestamp\)"):
        con.register("times", times)
    binary = pl.DataFrame({"raw": pl.Series([b"ab", None], dtype=pl.Binary)})
    with pytest.raises(clq.InvalidInputError, match=r"'raw' has the Arrow type 'vz' \(binary view\)"):
        con.register("binary", binary)
