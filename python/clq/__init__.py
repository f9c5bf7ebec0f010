"""clq from Python: SQL on any OpenCL device, Arrow in and out.

    import clq, pyarrow as pa
    con = clq.connect(device="gpu")
    con.register("t", pa.table({"k": [1, 2, 2], "v": [0.5, 1.5, 2.5]}))
    con.sql("SELECT k, SUM(v) FROM t GROUP BY k ORDER BY k").fetchall()

`register` takes any object with `__arrow_c_stream__` or `__arrow_c_array__`
(pyarrow tables and record batches, pandas and Polars data frames, DuckDB
relations); a result has `__arrow_c_stream__`, so `pyarrow.table(result)`,
`polars.from_arrow(result)` and `duckdb.from_arrow(result)` take it, and
`.fetchall()` and `.df()`. clq's errors are `clq.Error` and its subclasses
(`SqlError`, `InvalidInputError`, `FileError`, `DeviceLimitError`,
`InternalError`).
"""

from __future__ import annotations

import os
from typing import Any

from ._clq import (  # noqa: F401  (re-exported)
    DeviceLimitError,
    Error,
    FileError,
    InternalError,
    InvalidInputError,
    SqlError,
)
from . import _clq

__all__ = [
    "connect",
    "devices",
    "Connection",
    "Result",
    "Error",
    "SqlError",
    "InvalidInputError",
    "FileError",
    "DeviceLimitError",
    "InternalError",
]


def devices() -> list[dict[str, Any]]:
    """Every OpenCL device the loader sees, as `clq devices` lists them."""
    return _clq.devices()


class Result:
    """A query's result, held on the host until it is read."""

    def __init__(self, native: Any) -> None:
        self._native = native

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._native.__arrow_c_stream__(requested_schema)

    @property
    def columns(self) -> list[str]:
        return self._native.columns

    def __len__(self) -> int:
        return len(self._native)

    def fetchall(self) -> list[tuple]:
        return self._native.fetchall()

    def arrow(self) -> Any:
        """The result as a pyarrow.Table."""
        return _require("pyarrow", "Result.arrow()").table(self)

    def df(self) -> Any:
        """The result as a pandas DataFrame (through pyarrow)."""
        return self.arrow().to_pandas()

    def __repr__(self) -> str:
        return f"<clq.Result {len(self)} rows x {len(self.columns)} columns: {self.columns}>"


class Connection:
    """One OpenCL device (or several) and the tables registered on it."""

    def __init__(self, device: str | None = None, **options: Any) -> None:
        settings = [f"{name}={_setting(value)}" for name, value in options.items()]
        self._native = _clq.Connection(device or "", settings)

    @property
    def device(self) -> str:
        return self._native.device

    def register(self, name: str, data: Any) -> "Connection":
        """Registers (or replaces) table `name` from Arrow-compatible `data`."""
        if hasattr(data, "__arrow_c_stream__"):
            self._native.register_stream(name, data.__arrow_c_stream__())
        elif hasattr(data, "__arrow_c_array__"):
            schema, array = data.__arrow_c_array__()
            self._native.register_array(name, schema, array)
        elif hasattr(data, "arrow"):  # a DuckDB relation of a version without the protocol
            return self.register(name, data.arrow())
        else:
            # A lazy frame (Polars' LazyFrame) is a plan: its data exists
            # only once collected, and collecting is the caller's choice.
            hint = "; collect() it first" if hasattr(data, "collect") else ""
            raise TypeError(
                f"cannot register a {type(data).__name__}: it has neither __arrow_c_stream__ "
                "nor __arrow_c_array__ (pyarrow, pandas >= 2.2, Polars and DuckDB objects do)"
                + hint
            )
        return self

    def read_parquet(self, path: str | os.PathLike, name: str | None = None) -> "Connection":
        """Registers a Parquet file (read by pyarrow) as table `name`, by default
        the file's name without its extension."""
        parquet = _require("pyarrow.parquet", "read_parquet")
        table_name = name or os.path.splitext(os.path.basename(os.fspath(path)))[0]
        return self.register(table_name, parquet.read_table(os.fspath(path)))

    def sql(self, query: str) -> Result:
        """Runs one SELECT (or EXPLAIN SELECT) statement."""
        return Result(self._native.sql(query))

    def tables(self) -> list[str]:
        return self._native.tables()

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self._native = None


def connect(device: str | None = None, **options: Any) -> Connection:
    """A connection to one device: an index, "platform:device", gpu, cpu,
    accelerator or a name substring (default: $CLQ_DEVICE, else the first
    GPU, else the first CPU); or to several, "all" or a comma-separated
    list ("gpu,cpu"), which each query splits over or runs on the one the
    cost model chooses, as `clq query --device` does. Keyword options are
    clq's engine and query settings (the README's list), e.g.
    connect("cpu", wg_size=64)."""
    return Connection(device, **options)


def _setting(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _require(module: str, what: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"clq's {what} needs {module}: pip install pyarrow") from error
