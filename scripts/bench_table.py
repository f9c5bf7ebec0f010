#!/usr/bin/env python3
"""Prints a `clq bench --format json` report (and optional peer JSON files
from scripts/peers/) as a Markdown table: hot median per query, size and
device, % of copy bandwidth, cold median with the GB/s of the bytes it reads
and that as a % of the device's pinned host-to-device bandwidth (measured in
the same run; "-" on devices that read host memory in place), agreement, and
the peers beside them.

    python3 scripts/bench_table.py bench.json [cupy.json] [duckdb.json]
"""
import json
import sys


def peer_times(path):
    """{(query, rows): median_ms} from a peer script's JSON, or {} when skipped."""
    try:
        data = json.load(open(path))
    except (OSError, ValueError):
        return "?", {}
    name = data.get("peer", path)
    times = {}
    for r in data.get("results", []):
        if r.get("status") == "ok":
            times[(r["query"], r["rows"])] = r["hot"]["median_ms"] if "hot" in r else r["median_ms"]
    return name, times


def main():
    report = json.load(open(sys.argv[1]))
    peers = [peer_times(p) for p in sys.argv[2:]]
    devices = {d["index"]: d["name"][:24] for d in report["devices"]}
    pinned = {(d["index"], b["rows"]): b["h2d_pinned_gbps"]
              for d in report["devices"] if d.get("copies_tables", True)
              for b in d.get("copy_bandwidth", [])}
    head = ("| query | rows | device | hot ms median [min-max] | cold ms | cold GB/s (% pinned h2d)"
            " | % copy bw | agrees | CPU ref ms | SQLite ms |")
    head += "".join(f" {name} ms |" for name, _ in peers)
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    for case in report["cases"]:
        ref = case["peers"].get("cpu_reference", {})
        sqlite = case["peers"].get("sqlite", {})
        fmt = lambda p: f"{p['time']['median_ms']:.3f}" if p.get("status") == "ok" else p.get("status", "-")
        for d in case["devices"]:
            if d["status"] != "ok":
                cells = [d["status"], "", "", "", ""]
            else:
                h = d["hot"]
                cold_ms = d["cold"]["median_ms"]
                cold_gbps = case["bytes_read"] / (cold_ms * 1e6) if cold_ms > 0 else 0
                h2d = pinned.get((d["device"], case["rows"]), 0)
                cold = f"{cold_gbps:.1f} ({100 * cold_gbps / h2d:.0f}%)" if h2d > 0 else "-"
                cells = [f"{h['median_ms']:.3f} [{h['min_ms']:.3f}-{h['max_ms']:.3f}]", f"{cold_ms:.3f}", cold,
                         f"{100 * d['copy_fraction']:.1f}", ("unchecked" if "agrees" not in d else "yes" if d["agrees"] else "NO")]
            row = [case["query"], str(case["rows"]), devices[d["device"]]] + cells + [fmt(ref), fmt(sqlite)]
            row += [f"{t[(case['query'], case['rows'])]:.3f}" if (case["query"], case["rows"]) in t else "-"
                    for _, t in peers]
            print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
