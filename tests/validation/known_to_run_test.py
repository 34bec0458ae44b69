#!/usr/bin/env python3
"""Configurations published as having run (data/validation/known-to-run.csv): each ran in
production, so fathom's memory model must admit it. Simulates every row's scenario with the
catalog defaults, prints its peak memory per rank against the usable HBM with the margin, and
the simulated TFLOP/s per GPU beside the published figure (in the row's convention: hardware
FLOPs with recomputation, or model FLOPs). Asserts that every row fits; the throughput columns
are printed, not asserted (docs/validation.md, "Known to run", says how far they are and why).

Usage: known_to_run_test.py BUILD_DIR SOURCE_DIR
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

GIB = float(1 << 30)


def main() -> int:
    build, source = sys.argv[1], sys.argv[2]
    table = os.path.join(source, "data", "validation", "known-to-run.csv")
    with open(table, newline="") as f:
        rows = list(csv.DictReader(f))
    failures = 0
    print(f"{'configuration':28s} {'peak GiB':>9s} {'usable':>7s} {'margin':>14s} {'fathom TF/s':>12s} "
          f"{'published':>9s} {'error':>7s}")
    with tempfile.TemporaryDirectory() as work:
        for row in rows:
            name = row["name"]
            scenario = os.path.join(source, row["scenario"])
            out = os.path.join(work, name + ".json")
            run = subprocess.run([os.path.join(build, "fathom"), "simulate", scenario, "--json", out],
                                 capture_output=True, text=True)
            if run.returncode != 0 or not os.path.exists(out):
                print(f"FAILED: {name}: fathom simulate {row['scenario']} exited {run.returncode}")
                print(run.stdout[-2000:] + run.stderr[-2000:])
                failures += 1
                continue
            with open(out) as f:
                training = json.load(f)["training"]
            memory = training["memory"]
            peak = memory["peak_bytes_per_rank"] / GIB
            usable = memory["capacity_bytes"] / GIB
            margin = memory["headroom_bytes"] / GIB
            hardware = row["tflops_convention"].startswith("hardware")
            simulated = training["hardware_tflops_per_gpu" if hardware else "model_tflops_per_gpu"]
            published = row["published_tflops_per_gpu"]
            error = f"{100 * (simulated - float(published)) / float(published):+6.1f}%" if published else "      -"
            verdict = "" if memory["fits"] and margin >= 0 else "  FAILED: does not fit, yet it ran"
            print(f"{name:28s} {peak:9.2f} {usable:7.2f} {margin:+7.2f} ({100 * margin / usable:+4.0f}%) "
                  f"{simulated:8.1f} {'hw' if hardware else 'mdl'} {published or '-':>9s} {error}{verdict}")
            if verdict:
                failures += 1
    if len(rows) < 10:
        print(f"FAILED: expected at least 10 configurations, found {len(rows)}")
        failures += 1
    print(f"{len(rows) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
