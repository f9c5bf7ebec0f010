"""clq beyond one machine, on Dask: no scheduler of clq's own.

    import clq.dask
    df = clq.dask.sql("SELECT k, SUM(v), COUNT(*) FROM t GROUP BY k ORDER BY k",
                      tables={"t": dask_dataframe, "dim": small_pandas_frame},
                      device="gpu")

One table of `tables` is a Dask DataFrame, split into partitions; the others
are small (pandas, pyarrow or anything Arrow-compatible) and go whole to
every partition's task, so a join with them is a join per partition. The
query is split once (clq's binder: the same errors as a local query) into a
partial query that each partition's task runs on its worker's device
through the module, with one clq connection (one OpenCL context) per worker
process and device, and a combine that Dask runs over the partials: COUNT
and SUM add, MIN and MAX again, AVG is the summed SUM over the summed
COUNT, rows are concatenated, and ORDER BY, LIMIT and OFFSET apply last
(top-k: each partition keeps LIMIT + OFFSET rows). The shapes it refuses
(HAVING, expressions over aggregates, MEDIAN) are named in the message.
The result is a pandas DataFrame with Arrow-backed columns (NULLs kept,
64-bit integers exact).
"""

from __future__ import annotations

import threading
from typing import Any, Mapping

from . import Error, InvalidInputError, _clq, _require, connect

_INT64_MAX = 2**63 - 1

# One connection per process, device and settings, used by one task at a
# time: a worker's threads share its device's context.
_connections: dict = {}
_connections_lock = threading.Lock()


def _connection(device: str | None, options: tuple) -> tuple[Any, threading.Lock]:
    key = (device, options)
    with _connections_lock:
        if key not in _connections:
            _connections[key] = (connect(device, **dict(options)), threading.Lock())
        return _connections[key]


def _arrow(data: Any) -> Any:
    pa = _require("pyarrow", "clq.dask")
    pd = _require("pandas", "clq.dask")
    if isinstance(data, pd.DataFrame):
        return pa.Table.from_pandas(data, preserve_index=False)
    return pa.table(data)


def _empty_like(meta: Any) -> Any:
    """An empty Arrow table of a Dask frame's columns (pandas' object
    columns, typeless when empty, taken as strings)."""
    pa = _require("pyarrow", "clq.dask")
    schema = pa.Schema.from_pandas(meta, preserve_index=False)
    fields = [f.with_type(pa.string()) if pa.types.is_null(f.type) else f for f in schema]
    return pa.schema(fields).empty_table()


def _run_partial(partition: Any, name: str, partial_sql: str, broadcast: Mapping[str, Any],
                 device: str | None, options: tuple) -> Any:
    pa = _require("pyarrow", "clq.dask")
    con, lock = _connection(device, options)
    with lock:
        for table_name, table in broadcast.items():
            con.register(table_name, table)
        con.register(name, _arrow(partition))
        return pa.table(con.sql(partial_sql))


def _exact_sums(frame: Any, column: str, keys: list[str]) -> Any:
    """SUM of integer partials, an error past 64 bits as in clq (Arrow's sum
    would wrap): a float sum finds the groups near the limit, and those are
    added exactly."""
    pd = _require("pandas", "clq.dask")
    values = frame[column]
    grouped = values.groupby([frame[k] for k in keys], dropna=False, sort=False) if keys else None
    sums = grouped.sum(min_count=1) if keys else pd.Series([values.sum(min_count=1)])
    if pd.api.types.is_integer_dtype(values.dtype):
        approx = (values.astype("float64").groupby([frame[k] for k in keys], dropna=False, sort=False)
                  .sum() if keys else pd.Series([values.astype("float64").sum()]))
        if (approx.abs() > 9.0e18).any():
            exact = (values.groupby([frame[k] for k in keys], dropna=False, sort=False)
                     .agg(lambda s: sum(int(v) for v in s.dropna())) if keys
                     else pd.Series([sum(int(v) for v in values.dropna())]))
            if ((exact > _INT64_MAX) | (exact < -_INT64_MAX - 1)).any():
                raise InvalidInputError("integer overflow")
    return sums


def _combine(parts: list, plan: dict) -> Any:
    pa = _require("pyarrow", "clq.dask")
    pd = _require("pandas", "clq.dask")
    table = pa.concat_tables(parts, promote_options="default")
    frame = table.to_pandas(types_mapper=pd.ArrowDtype)
    outputs = plan["outputs"]
    if plan["aggregated"]:
        keys = plan["group_columns"]
        columns = []
        for o in outputs:
            col = o["column"]
            if o["combine"] == "key":
                columns.append(None)  # filled from the group index below
            elif o["combine"] in ("count", "sum"):
                columns.append(_exact_sums(frame, col, keys))
            elif o["combine"] in ("min", "max"):
                values = frame[col]
                if keys:
                    g = values.groupby([frame[k] for k in keys], dropna=False, sort=False)
                    columns.append(g.min() if o["combine"] == "min" else g.max())
                else:
                    v = values.min() if o["combine"] == "min" else values.max()
                    columns.append(pd.Series([v], dtype=values.dtype))
            else:  # avg
                sums = _exact_sums(frame, col, keys).astype("float64[pyarrow]")
                counts = _exact_sums(frame, o["count_column"], keys).astype("float64[pyarrow]")
                columns.append((sums / counts).where(counts > 0))
        if keys:
            index = None
            for c in columns:
                if c is not None:
                    index = c.index
                    break
            if index is None:  # only keys: the distinct key tuples
                index = frame.groupby(keys, dropna=False, sort=False).size().index
            key_frame = index.to_frame(index=False)
            key_frame.columns = keys
            result = []
            for o, c in zip(outputs, columns):
                s = key_frame[o["column"]] if c is None else c.reset_index(drop=True)
                result.append(s.rename(o["name"]).reset_index(drop=True))
        else:
            result = [c.rename(o["name"]).reset_index(drop=True) for o, c in zip(outputs, columns)]
        final = pd.concat(result, axis=1)
    else:
        final = pd.concat([frame[o["column"]].rename(o["name"]) for o in outputs], axis=1)
        if plan["distinct"]:
            visible = [i for i, o in enumerate(outputs) if o["visible"]]
            final = final.loc[~final.iloc[:, visible].duplicated()]
    # ORDER BY as SQLite orders: NULL first ascending, last descending; one
    # stable pass per key, the last key first.
    order = pd.RangeIndex(len(final))
    for output, descending in reversed(plan["order_by"]):
        keys_now = final.iloc[order, output]
        ranked = keys_now.reset_index(drop=True).sort_values(
            ascending=not descending, kind="stable", na_position="last" if descending else "first")
        order = order[ranked.index.to_numpy()]
    final = final.iloc[order]
    start = plan["offset"]
    stop = None if plan["limit"] is None else start + plan["limit"]
    final = final.iloc[start:stop]
    visible = [i for i, o in enumerate(outputs) if o["visible"]]
    return final.iloc[:, visible].reset_index(drop=True)


def sql(query: str, tables: Mapping[str, Any], device: str | None = None, **options: Any) -> Any:
    """Runs `query` over `tables` (exactly one of them a Dask DataFrame) and
    returns a pandas DataFrame. `device` and `options` are clq.connect's, for
    every worker."""
    dd = _require("dask.dataframe", "clq.dask")
    dask = _require("dask", "clq.dask")
    partitioned = [name for name, t in tables.items() if isinstance(t, dd.DataFrame)]
    if len(partitioned) != 1:
        raise InvalidInputError(
            "clq.dask.sql needs exactly one Dask DataFrame among the tables (got "
            f"{len(partitioned)}); the others go whole to every partition")
    name = partitioned[0]
    ddf = tables[name]
    broadcast = {n: _arrow(t) for n, t in tables.items() if n != name}
    schemas = {n: t.__arrow_c_stream__() for n, t in broadcast.items()}
    schemas[name] = _empty_like(ddf._meta).__arrow_c_stream__()
    plan = _clq.split_for_partitions(query, schemas, name)
    settings = tuple(sorted(options.items()))
    parts = [dask.delayed(_run_partial)(p, name, plan["partial_sql"], broadcast, device, settings)
             for p in ddf.to_delayed()]
    return dask.delayed(_combine)(parts, plan).compute()


__all__ = ["sql", "Error"]
