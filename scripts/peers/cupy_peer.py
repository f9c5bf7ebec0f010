#!/usr/bin/env python3
"""CuPy peer of `clq bench`: the thesis queries written as CuPy array code on
the GPU, over the same Wisconsin rows (generated on the GPU with the exact
formula of wisconsin_data.py); prints one JSON object on stdout.

  L2   projection unique1 + unique2                     (int64 result)
  L7   AVG(unique1)                                     (exact int64 sum / N)
  L8   selection, 4 predicates; SELECT * gathers the 13 INT32 columns (the
       three CHAR(52) columns are left out: CuPy has no fixed-width strings)
  L11  join t1.unique1 = t2.unique1: argsort of the smaller side's keys,
       searchsorted of the other side (left/right, so duplicate keys work),
       then a gather of 13 + 13 INT32 columns
  L13  both selections, the same sort + searchsorted join, MAX(...)
  L14  MAX(unique1 * tenpercent / 100), and its REAL variant
Every run ends with the result on the host (cupy.asnumpy), as clq's does.
hot: columns resident on the GPU; cold: the columns a query reads are copied
from host memory first (cupy.asarray), inside the timing. Times are host
wall-clock around the run with the device synchronised, median/min/max over
--repeat runs after one warm-up. tenktup2 has 0.6 N rows (a relation of its
own), as in clq's thesis suite.

--numpy runs the same code with numpy on the CPU: a check of the array code
on machines without a GPU (its answers are printed with --answers).
When cupy is not importable (and --numpy is not given) it prints
{"peer": "cupy", "status": "skipped", "reason": ...} and exits 0.

  python3 scripts/peers/cupy_peer.py --rows 1000,10000,100000,1000000 > cupy.json
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def skipped(reason):
    print(json.dumps({"peer": "cupy", "status": "skipped", "reason": reason}))
    sys.exit(0)


def parse_rows(text):
    out = []
    for item in text.split(","):
        mult = {"K": 1000, "M": 1000000, "G": 1000000000}.get(item[-1:].upper(), 1)
        out.append(int(item[:-1] if mult > 1 else item) * mult)
    return out


def join_pairs(xp, build_keys, probe_keys):
    """Row-index pairs (probe, build) with equal keys: sort + searchsorted."""
    order = xp.argsort(build_keys)
    sorted_keys = build_keys[order]
    left = xp.searchsorted(sorted_keys, probe_keys, side="left")
    right = xp.searchsorted(sorted_keys, probe_keys, side="right")
    counts = right - left
    ends = xp.cumsum(counts)  # inclusive scan: output slots of each probe row end here
    total = int(ends[-1]) if ends.shape[0] else 0
    # Output slot k belongs to the probe row whose range holds k (cupy.repeat
    # takes no device array of counts, so find it by binary search).
    output = xp.arange(total)
    probe_rows = xp.searchsorted(ends, output, side="right")
    within = output - (ends - counts)[probe_rows]
    build_rows = order[left[probe_rows] + within]
    return probe_rows, build_rows


_to_host = None


def set_to_host(function):
    global _to_host
    _to_host = function


def to_host(array):
    """The array in host memory (cupy.asnumpy; identity with --numpy)."""
    return _to_host(array)


def int_max(xp, values):
    return None if values.shape[0] == 0 else int(values.max())


# Each query: (id, columns of t1 read, columns of t2 read, function(xp, t1, t2) -> host answer)
def q2(xp, t1, t2):
    return to_host(t1["unique1"].astype(xp.int64) + t1["unique2"])


def q7(xp, t1, t2):
    n = t1["unique1"].shape[0]
    return None if n == 0 else int(t1["unique1"].sum(dtype=xp.int64)) / n


def q8(xp, t1, t2):
    u1, u2 = t1["unique1"], t1["unique2"]
    mask = (u1 > 1000) & (u1 < 6000) & (u2 % 2 == 0) & (t1["two"] == 0)
    rows = xp.nonzero(mask)[0]
    return {name: to_host(t1[name][rows]) for name in INT_COLUMNS}


def q11(xp, t1, t2):
    probe, build = join_pairs(xp, t2["unique1"], t1["unique1"])  # build on the smaller t2
    out = {"t1." + c: to_host(t1[c][probe]) for c in INT_COLUMNS}
    out.update({"t2." + c: to_host(t2[c][build]) for c in INT_COLUMNS})
    return out


def q13(xp, t1, t2):
    r1 = xp.nonzero(t1["unique1"] < 6000)[0]
    r2 = xp.nonzero(t2["unique2"] > 1000)[0]
    probe, build = join_pairs(xp, t2["unique2"][r2], t1["unique1"][r1])
    rows = r1[probe]
    values = t1["unique1"][rows].astype(xp.int64) * t1["tenPercent"][rows] // 100
    return int_max(xp, values)


def q14(xp, t1, t2):
    return int_max(xp, t1["unique1"].astype(xp.int64) * t1["tenPercent"] // 100)


def q14_real(xp, t1, t2):
    u1 = t1["unique1"]
    return None if u1.shape[0] == 0 else float((u1 / (0.173 + t1["onePercent"])).max())


QUERIES = [
    ("L2_projection", ["unique1", "unique2"], [], q2),
    ("L7_avg", ["unique1"], [], q7),
    ("L8_selection", None, [], q8),  # None: every INT32 column
    ("L11_join", None, None, q11),
    ("L13_combined", ["unique1", "tenPercent"], ["unique2"], q13),
    ("L14_max", ["unique1", "tenPercent"], [], q14),
    ("L14_max_real", ["unique1", "onePercent"], [], q14_real),
]


def summary(answer):
    """A short, JSON-friendly form of an answer: scalars as is, arrays by size and sum."""
    if answer is None or isinstance(answer, (int, float)):
        return answer
    if isinstance(answer, dict):
        first = next(iter(answer.values()))
        return {"rows": int(first.shape[0]),
                "column_sums": {k: int(v.astype("int64").sum()) for k, v in answer.items()}}
    return {"rows": int(answer.shape[0]), "sum": int(answer.astype("int64").sum())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", default="1000,10000,100000,1000000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--numpy", action="store_true", help="run the array code with numpy")
    parser.add_argument("--answers", action="store_true", help="include each query's answer")
    args = parser.parse_args()

    try:
        import numpy as np
    except ImportError:
        skipped("numpy is not importable")
    if args.numpy:
        xp = np
        set_to_host(lambda a: a)
        sync = lambda: None  # noqa: E731
        device = {"name": "the host CPU"}
    else:
        try:
            import cupy as cp
        except ImportError:
            skipped("cupy is not importable (pip install cupy-cuda12x)")
        xp = cp
        set_to_host(cp.asnumpy)
        sync = cp.cuda.Device().synchronize
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        device = {"name": props["name"].decode(), "cupy_version": cp.__version__,
                  "cuda_runtime": cp.cuda.runtime.runtimeGetVersion()}

    import wisconsin_data as wd
    global INT_COLUMNS
    INT_COLUMNS = wd.INT_COLUMNS

    def timed(run):
        run()  # warm-up
        sync()
        runs = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            answer = run()
            sync()
            runs.append((time.perf_counter() - start) * 1e3)
        return answer, {"runs_ms": runs, "median_ms": statistics.median(runs),
                        "min_ms": min(runs), "max_ms": max(runs)}

    results = []
    for n in parse_rows(args.rows):
        n2 = max(1, int(n * wd.THESIS_TENKTUP2_FRACTION))
        t1 = wd.int_columns(n, xp)  # generated on the device
        t2 = wd.int_columns(n2, xp)
        host1 = {k: (v if args.numpy else cp.asnumpy(v)) for k, v in t1.items()}
        host2 = {k: (v if args.numpy else cp.asnumpy(v)) for k, v in t2.items()}
        for qid, cols1, cols2, query in QUERIES:
            cols1 = INT_COLUMNS if cols1 is None else cols1
            cols2 = INT_COLUMNS if cols2 is None else cols2
            record = {"query": qid, "rows": n, "tenktup2_rows": n2}
            try:
                answer, hot = timed(lambda: query(xp, t1, t2))

                def cold_run():
                    c1 = {c: xp.asarray(host1[c]) for c in cols1}
                    c2 = {c: xp.asarray(host2[c]) for c in cols2}
                    return query(xp, c1, c2)

                _, cold = timed(cold_run)
                record.update(status="ok", hot=hot, cold=cold)
                if args.answers:
                    record["answer"] = summary(answer)
            except Exception as e:  # one failing query must not stop the others
                record.update(status="error", error=str(e))
            results.append(record)
        del t1, t2
    print(json.dumps({"peer": "cupy" if not args.numpy else "numpy", "status": "ok",
                      "device": device,
                      "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                      "results": results}, indent=1))


INT_COLUMNS = []

if __name__ == "__main__":
    main()
