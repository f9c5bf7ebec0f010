#!/usr/bin/env python3
"""Plots `clq bench --format json` reports (matplotlib), PNGs into a folder:

  time_per_row_<device>.png  hot median time per row (ns) against table size
                             N, log-log, one line per query (dashed: cold)
  query_<query>.png          the same for one query, one line per device/peer
  copy_fraction_<N>.png      GB/s of each query as a fraction of the same
                             device's copy bandwidth, bars per query and device,
                             one figure per size

Several reports (say one per machine) can be given; their devices are told
apart by name. Outputs of scripts/peers/duckdb_peer.py and cupy_peer.py add
their own series to the time-per-row plots, as do the CPU reference and SQLite
times of clq's reports with --host-peers. Queries that are unsupported or
failed are left out.

  python3 scripts/plot_bench.py bench.json [duckdb.json cupy.json ...] --out plots/
"""

import argparse
import json
import os
import re
import sys
from collections import defaultdict


def slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")[:60]


def peer_rows(report):
    """Rows from a duckdb_peer.py / cupy_peer.py output (no copy fraction)."""
    rows = []
    if report.get("status") != "ok":
        return rows
    name = report["peer"]
    if "device" in report:
        name += " on " + report["device"]["name"]
    for r in report["results"]:
        if r.get("status") != "ok":
            continue
        hot = r["hot"]["median_ms"] if "hot" in r else r["median_ms"]
        cold = r["cold"]["median_ms"] if "cold" in r else hot
        rows.append({"device": name, "query": r["query"], "rows": r["rows"], "hot_ms": hot,
                     "cold_ms": cold, "copy_fraction": None})
    return rows


def load(paths, with_host_peers):
    """Rows of (device name, query, N, hot ms, cold ms, copy fraction)."""
    rows = []
    for path in paths:
        with open(path) as f:
            report = json.load(f)
        if "peer" in report:
            rows += peer_rows(report)
            continue
        if with_host_peers:  # the CPU reference and SQLite times of clq's report
            for case in report["cases"]:
                for key, name in (("cpu_reference", "clq CPU reference (host)"),
                                  ("sqlite", "SQLite (host)")):
                    peer = case["peers"][key]
                    if peer["status"] == "ok":
                        t = peer["time"]["median_ms"]
                        rows.append({"device": name, "query": case["query"], "rows": case["rows"],
                                     "hot_ms": t, "cold_ms": t, "copy_fraction": None})
        devices = report["devices"]
        for case in report["cases"]:
            for result in case["devices"]:
                if result.get("status") != "ok":
                    continue
                device = devices[result["device"]]
                rows.append({
                    "device": f'{device["name"]} ({device["platform"]})',
                    "query": case["query"], "rows": case["rows"],
                    "hot_ms": result["hot"]["median_ms"], "cold_ms": result["cold"]["median_ms"],
                    "copy_fraction": result.get("copy_fraction", 0.0),
                })
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("reports", nargs="+",
                        help="clq bench --format json outputs and peer outputs "
                             "(scripts/peers/*_peer.py)")
    parser.add_argument("--host-peers", action="store_true",
                        help="also plot the CPU reference and SQLite times of clq's reports")
    parser.add_argument("--out", default="bench_plots", help="folder for the PNGs")
    args = parser.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_bench.py needs matplotlib (pip install matplotlib)")
    rows = load(args.reports, args.host_peers)
    if not rows:
        sys.exit("no successful measurements in the reports")
    os.makedirs(args.out, exist_ok=True)
    written = []

    by_device = defaultdict(list)
    for r in rows:
        by_device[r["device"]].append(r)
    for device, items in sorted(by_device.items()):
        fig, ax = plt.subplots(figsize=(8, 5))
        by_query = defaultdict(list)
        for r in items:
            by_query[r["query"]].append(r)
        for i, (query, points) in enumerate(sorted(by_query.items())):
            points.sort(key=lambda r: r["rows"])
            n = [p["rows"] for p in points]
            color = f"C{i % 10}"
            ax.plot(n, [p["hot_ms"] * 1e6 / p["rows"] for p in points], "o-", color=color,
                    label=f"{query} hot")
            ax.plot(n, [p["cold_ms"] * 1e6 / p["rows"] for p in points], "x--", color=color,
                    alpha=0.5, label=f"{query} cold")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("rows N of tenktup1")
        ax.set_ylabel("time per row (ns), median")
        ax.set_title(f"clq bench: time per row on {device}", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, ncol=2)
        path = os.path.join(args.out, f"time_per_row_{slug(device)}.png")
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)

    by_query = defaultdict(list)
    for r in rows:
        by_query[r["query"]].append(r)
    for query, items in sorted(by_query.items()):
        fig, ax = plt.subplots(figsize=(8, 5))
        series = defaultdict(list)
        for r in items:
            series[r["device"]].append(r)
        for i, (device, points) in enumerate(sorted(series.items())):
            points.sort(key=lambda r: r["rows"])
            ax.plot([p["rows"] for p in points], [p["hot_ms"] * 1e6 / p["rows"] for p in points],
                    "o-", color=f"C{i % 10}", label=device)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("rows N of tenktup1")
        ax.set_ylabel("time per row (ns), hot median")
        ax.set_title(f"clq bench: {query}, time per row by device and peer", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
        path = os.path.join(args.out, f"query_{slug(query)}.png")
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)

    by_size = defaultdict(list)
    for r in rows:
        if r["copy_fraction"] is not None:  # peers have no copy bandwidth
            by_size[r["rows"]].append(r)
    for n, items in sorted(by_size.items()):
        queries = sorted({r["query"] for r in items})
        devices = sorted({r["device"] for r in items})
        width = 0.8 / len(devices)
        fig, ax = plt.subplots(figsize=(max(6, len(queries) * 0.9), 5))
        for d, device in enumerate(devices):
            value = {r["query"]: r["copy_fraction"] * 100 for r in items if r["device"] == device}
            xs = [q + d * width for q in range(len(queries))]
            ax.bar(xs, [value.get(q, 0) for q in queries], width, label=device)
        ax.set_xticks([q + width * (len(devices) - 1) / 2 for q in range(len(queries))])
        ax.set_xticklabels(queries, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("% of the device's copy bandwidth (hot)")
        ax.set_title(f"clq bench: bandwidth as a fraction of copy bandwidth, N = {n}", fontsize=9)
        ax.legend(fontsize=7)
        ax.grid(True, axis="y", alpha=0.3)
        path = os.path.join(args.out, f"copy_fraction_{n}.png")
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
