"""Times pyarrow.table(con.sql(...)) of a large one-column result, and the
memory a registered table adds, for docs/BENCHMARKS.md.

    python3 scripts/python_large_result.py [--rows 100000000] [--device gpu]

Prints JSON: the result's bytes, the hot median seconds of the query to a
pyarrow table, and the resident-memory growth of registering the input."""
import argparse
import json
import statistics
import time

import numpy
import pyarrow
import pyarrow.compute

import clq


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--device", default="gpu")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = numpy.random.default_rng(1)
    # Buffers pyarrow allocates (64-byte aligned, as clq reads in place);
    # NumPy's own are aligned less.
    table = pyarrow.table(
        {
            name: pyarrow.compute.add(
                rng.integers(0, 1 << 30, args.rows, dtype=numpy.int32), pyarrow.scalar(0, pyarrow.int32())
            )
            for name in ("a", "b")
        }
    )
    con = clq.connect(device=args.device)
    before = resident_bytes()
    con.register("t", table)
    registered = resident_bytes() - before
    query = "SELECT a + b AS s FROM t"
    times = []
    for i in range(args.repeat + 1):
        start = time.perf_counter()
        result = pyarrow.table(con.sql(query))
        elapsed = time.perf_counter() - start
        rows = result.num_rows
        nbytes = result.nbytes
        del result
        if i > 0:
            times.append(elapsed)
    print(
        json.dumps(
            {
                "device": args.device,
                "rows": rows,
                "result_bytes": nbytes,
                "table_bytes": table.nbytes,
                "register_growth_bytes": registered,
                "register_growth_fraction": registered / table.nbytes,
                "hot_median_s": statistics.median(times),
                "hot_s": times,
            }
        )
    )


if __name__ == "__main__":
    main()
