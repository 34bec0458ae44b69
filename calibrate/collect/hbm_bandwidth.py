#!/usr/bin/python3
"""BabelStream-style GPU memory bandwidth with PyTorch; writes fathom's HBM STREAM CSV.

Kernels as BabelStream defines them, on three arrays a, b, c of N elements and a scalar s:
  Copy  c = a           2 N elements moved
  Mul   b = s * c       2 N
  Add   c = a + b       3 N
  Triad a = b + s * c   3 N
  Dot   sum(a * b)      2 N
Each is run --repeats times, each run timed alone with CUDA events; the bandwidth is the bytes
moved over the fastest run (BabelStream's max rate). Output: `kernel,bandwidth_TBps` (10^12 B/s),
the form parse_stream_csv reads as HBM (the default file name contains "hbm").

--dry-run prints the plan and exits without importing torch.
See calibrate/collect/README.md.
"""

import argparse
import datetime
import os
import shlex
import socket
import sys

from provenance import provenance_path, run_text

KERNELS = ["Copy", "Mul", "Add", "Triad", "Dot"]
# Arrays read and written per element.
MOVED = {"Copy": 2, "Mul": 2, "Add": 3, "Triad": 3, "Dot": 2}
SCALAR = 0.4  # BabelStream's startScalar


def parse_args(argv):
    p = argparse.ArgumentParser(description="GPU memory bandwidth (BabelStream kernels) for fathom calibrate.")
    p.add_argument("--out", default="hbm.csv", help="output CSV (default %(default)s)")
    p.add_argument("--provenance", default=None,
                   help="provenance file (default: DIR/provenance/NAME.provenance.txt for --out DIR/NAME)")
    p.add_argument("--array-mib", type=int, default=2048,
                   help="size of each of the three arrays in MiB (default %(default)s; far above any cache)")
    p.add_argument("--precision", choices=["fp64", "fp32"], default="fp64",
                   help="element type (default %(default)s, as BabelStream)")
    p.add_argument("--repeats", type=int, default=100, help="timed runs per kernel; the best counts (default %(default)s)")
    p.add_argument("--warmup", type=int, default=5, help="untimed runs per kernel first (default %(default)s)")
    p.add_argument("--device", type=int, default=0, help="CUDA device index (default %(default)s)")
    p.add_argument("--dry-run", action="store_true", help="print the plan and exit (torch is not imported)")
    args = p.parse_args(argv)
    if args.array_mib < 1:
        p.error("--array-mib must be >= 1")
    if args.repeats < 1:
        p.error("--repeats must be >= 1")
    if args.warmup < 0:
        p.error("--warmup must be >= 0")
    return args


def main(argv):
    args = parse_args(argv)
    elem = 8 if args.precision == "fp64" else 4
    n = args.array_mib * 2**20 // elem
    if args.dry_run:
        print("# hbm_bandwidth.py dry run -> %s (kernel,bandwidth_TBps)" % args.out)
        print("# provenance -> " + provenance_path(args))
        print("# arrays: 3 x %d %s elements (%d MiB each), best of %d runs after %d warmup" % (
            n, args.precision, args.array_mib, args.repeats, args.warmup))
        for k in KERNELS:
            print("%s: %d x %d bytes per run" % (k, MOVED[k], n * elem))
        return 0
    try:
        import torch  # pylint: disable=import-outside-toplevel
    except ImportError:
        sys.stderr.write("hbm_bandwidth.py: error: missing prerequisite: PyTorch with CUDA "
                         "(import torch failed for %s); install it, or use babelstream.sh\n" % sys.executable)
        return 1
    if not torch.cuda.is_available():
        sys.stderr.write("hbm_bandwidth.py: error: torch %s sees no CUDA GPU\n" % torch.__version__)
        return 1
    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    dtype = torch.float64 if args.precision == "fp64" else torch.float32
    # BabelStream's start values.
    a = torch.full((n,), 0.1, dtype=dtype, device=device)
    b = torch.full((n,), 0.2, dtype=dtype, device=device)
    c = torch.full((n,), 0.0, dtype=dtype, device=device)
    dot_out = torch.empty((), dtype=dtype, device=device)
    runs = {
        "Copy": lambda: c.copy_(a),
        "Mul": lambda: torch.mul(c, SCALAR, out=b),
        "Add": lambda: torch.add(a, b, out=c),
        "Triad": lambda: torch.add(b, c, alpha=SCALAR, out=a),
        "Dot": lambda: torch.dot(a, b, out=dot_out),
    }
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(args.repeats)]
    results = []
    for kernel in KERNELS:
        run = runs[kernel]
        for _ in range(args.warmup):
            run()
        torch.cuda.synchronize()
        for start, stop in events:
            start.record()
            run()
            stop.record()
        torch.cuda.synchronize()
        best = min(start.elapsed_time(stop) for start, stop in events) / 1e3
        tbps = MOVED[kernel] * n * elem / best / 1e12
        results.append((kernel, tbps))
        sys.stderr.write("hbm_bandwidth.py: %s %.3f TB/s\n" % (kernel, tbps))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("kernel,bandwidth_TBps\n")
        for kernel, tbps in results:
            f.write("%s,%.3f\n" % (kernel, tbps))
    dev = torch.cuda.get_device_properties(args.device)
    smi = run_text(["nvidia-smi", "-i", str(args.device), "--query-gpu=name,driver_version",
                    "--format=csv,noheader"])
    lines = [
        "tool: calibrate/collect/hbm_bandwidth.py (PyTorch BabelStream kernels: Copy, Mul, Add, Triad, Dot)",
        "output: " + os.path.abspath(args.out),
        "date: " + datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host: " + socket.gethostname(),
        "gpu: %s (compute capability %d.%d, %.1f GiB)" % (dev.name, dev.major, dev.minor, dev.total_memory / 2**30),
        "nvidia-smi name,driver: " + (smi or "unavailable"),
        "cuda (torch build): " + str(torch.version.cuda),
        "torch: " + torch.__version__,
        "arrays: 3 x %d %s elements (%d MiB each)" % (n, args.precision, args.array_mib),
        "timing: CUDA events per run, %d warmup, best of %d" % (args.warmup, args.repeats),
        "command: " + " ".join(shlex.quote(x) for x in [sys.executable] + sys.argv),
    ]
    path = provenance_path(args)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    sys.stderr.write("hbm_bandwidth.py: wrote %s\n" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
