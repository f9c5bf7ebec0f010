"""A connection to several devices (`clq.connect("pocl,pocl")` with PoCL
showing two CPU devices, POCL_DEVICES="pthread pthread", set before PoCL
loads: in a process of its own) answers as one device does: the cost model
splits each query or places it on one device, run after run while its
measurements change, and the answer stays one device's."""

import os
import subprocess
import sys
import textwrap

import pytest

import clq

SCRIPT = textwrap.dedent(
    """
    import random
    import pyarrow as pa
    import clq

    rng = random.Random(11)
    rows = 200000
    t = pa.table({
        "k": pa.array([rng.randrange(0, 40) for _ in range(rows)], pa.int32()),
        "v": pa.array([rng.randrange(-10**6, 10**6) for _ in range(rows)], pa.int64()),
        "s": pa.array([rng.choice(["ant", "bee", "cat", None]) for _ in range(rows)]),
    })
    queries = [
        "SELECT k, COUNT(*), SUM(v), MIN(v), MAX(v) FROM t GROUP BY k",
        "SELECT COUNT(*), SUM(v) FROM t WHERE k < 17",
        "SELECT k, v FROM t WHERE v > 0 ORDER BY v DESC, k LIMIT 50 OFFSET 10",
        "SELECT DISTINCT s, k FROM t ORDER BY k, s LIMIT 30",
        "SELECT s, COUNT(*) FROM t GROUP BY s",
    ]
    first = next(d for d in clq.devices() if "Portable Computing Language" in d["platform"])
    one = clq.connect(first["selector"])
    several = clq.connect("pocl,pocl")
    assert ", " in several.device, several.device
    for c in (one, several):
        c.register("t", t)
    for q in queries:
        expected = one.sql(q).arrow()
        for run in range(3):
            got = several.sql(q).arrow()
            assert got.equals(expected), (q, run, got, expected)
    plan = "\\n".join(several.sql("EXPLAIN " + queries[0]).arrow().column(0).to_pylist())
    assert "the cost model's estimates: alone on device 0" in plan, plan
    print("ok")
    """
)


def test_several_devices_answer_as_one():
    if not any("Portable Computing Language" in d["platform"] for d in clq.devices()):
        pytest.skip("PoCL is not installed")
    env = dict(os.environ, POCL_DEVICES="pthread pthread")
    env.pop("CLQ_TEST_DEVICES", None)
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stdout + done.stderr
