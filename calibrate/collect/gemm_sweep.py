#!/usr/bin/python3
"""Times a sweep of GEMM shapes on one GPU with PyTorch and writes fathom's GEMM CSV.

Output: `m,n,k,dtype,tflops` (the form parse_gemm_csv reads), where C[m,n] = A[m,k] @ B[k,n]
and tflops = 2*m*n*k / time / 1e12. fp8e4m3 uses torch._scaled_mm (GPUs of compute capability
8.9 and up: Ada, Hopper, Blackwell); fp16, bf16, tf32, fp32, fp64 use torch.matmul.
A provenance sidecar (GPU, driver, CUDA, torch, date, command) goes next to it, under
provenance/ so that `fathom calibrate` reading the folder does not take it for a measurement.

--dry-run prints the shape list and exits without importing torch.
See calibrate/collect/README.md.
"""

import argparse
import datetime
import os
import shlex
import socket
import sys

from provenance import provenance_path, run_text

SQUARE = [1024, 2048, 4096, 8192, 16384]
EXTRA = [(1024, 2145, 1024), (6144, 12288, 12288), (802816, 192, 768)]
# The dtype names fathom's gemm_dtypes() accepts that this script can time.
SUPPORTED = ["fp64", "fp32", "tf32", "fp16", "bf16", "fp8e4m3"]
DEFAULT_DTYPES = "bf16,fp16,fp8e4m3"


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Time GEMMs with PyTorch and write m,n,k,dtype,tflops for fathom calibrate.")
    p.add_argument("--dtypes", default=DEFAULT_DTYPES,
                   help="comma-separated, from " + ", ".join(SUPPORTED) + " (default %(default)s)")
    p.add_argument("--out", default="gemm.csv", help="output CSV (default %(default)s)")
    p.add_argument("--provenance", default=None,
                   help="provenance file (default: DIR/provenance/NAME.provenance.txt for --out DIR/NAME)")
    p.add_argument("--repeats", type=int, default=50, help="timed runs per trial (default %(default)s)")
    p.add_argument("--warmup", type=int, default=10, help="untimed runs first (default %(default)s)")
    p.add_argument("--trials", type=int, default=3,
                   help="timed trials of --repeats runs; the best is kept (default %(default)s)")
    p.add_argument("--device", type=int, default=0, help="CUDA device index (default %(default)s)")
    p.add_argument("--hidden", type=int, default=None, help="transformer hidden size: adds its layer's GEMMs")
    p.add_argument("--ffn", type=int, default=None, help="FFN inner size (default 4 x --hidden)")
    p.add_argument("--tokens", type=int, default=None,
                   help="tokens per GEMM, micro-batch x sequence (default 4096)")
    p.add_argument("--qkv-out", type=int, default=None,
                   help="QKV projection width (default 3 x --hidden; less with grouped-query attention)")
    p.add_argument("--gated", action="store_true", help="gated FFN (SwiGLU): up-projection is 2 x --ffn wide")
    p.add_argument("--no-default-shapes", action="store_true",
                   help="only the transformer shapes, not the square and fixed ones")
    p.add_argument("--dry-run", action="store_true", help="print the shapes and exit (torch is not imported)")
    args = p.parse_args(argv)
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    bad = [d for d in dtypes if d not in SUPPORTED]
    if not dtypes or bad:
        p.error("--dtypes: unsupported %s; this script times %s" % (", ".join(bad) or "(empty)", ", ".join(SUPPORTED)))
    args.dtype_list = dtypes
    for name in ("repeats", "trials"):
        if getattr(args, name) < 1:
            p.error("--%s must be >= 1" % name)
    if args.warmup < 0:
        p.error("--warmup must be >= 0")
    for name in ("hidden", "ffn", "tokens", "qkv_out"):
        value = getattr(args, name)
        if value is not None and value < 1:
            p.error("--%s must be >= 1" % name.replace("_", "-"))
    if args.hidden is None and (args.ffn or args.tokens or args.qkv_out or args.gated):
        p.error("--ffn, --tokens, --qkv-out and --gated need --hidden")
    if args.no_default_shapes and args.hidden is None:
        p.error("--no-default-shapes needs --hidden (else there is nothing to time)")
    return args


def shapes(args):
    """(m, n, k, where-from) in order, without repeats."""
    out = []
    if not args.no_default_shapes:
        out += [(s, s, s, "square") for s in SQUARE]
        out += [(m, n, k, "fixed") for m, n, k in EXTRA]
    if args.hidden is not None:
        h = args.hidden
        f = args.ffn or 4 * h
        t = args.tokens or 4096
        qkv = args.qkv_out or 3 * h
        up = 2 * f if args.gated else f
        # Forward (m=tokens, n=out features, k=in features), then the backward's two GEMMs:
        # data gradient (t x k x n) and weight gradient (k x n x t).
        for name, n, k in (("qkv", qkv, h), ("attn_out", h, h), ("ffn_up", up, h), ("ffn_down", h, f)):
            out.append((t, n, k, "layer " + name + " fwd"))
            out.append((t, k, n, "layer " + name + " dgrad"))
            out.append((k, n, t, "layer " + name + " wgrad"))
    seen = set()
    unique = []
    for m, n, k, why in out:
        if (m, n, k) not in seen:
            seen.add((m, n, k))
            unique.append((m, n, k, why))
    return unique


def write_provenance(path, torch, args, skipped):
    dev = torch.cuda.get_device_properties(args.device)
    smi = run_text(["nvidia-smi", "-i", str(args.device), "--query-gpu=name,driver_version",
                    "--format=csv,noheader"])
    lines = [
        "tool: calibrate/collect/gemm_sweep.py (PyTorch: torch._scaled_mm for fp8, torch.matmul otherwise)",
        "output: " + os.path.abspath(args.out),
        "date: " + datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host: " + socket.gethostname(),
        "gpu: %s (compute capability %d.%d, %d SMs, %.1f GiB)" % (
            dev.name, dev.major, dev.minor, dev.multi_processor_count, dev.total_memory / 2**30),
        "nvidia-smi name,driver: " + (smi or "unavailable"),
        "cuda (torch build): " + str(torch.version.cuda),
        "cudnn: " + str(torch.backends.cudnn.version()),
        "torch: " + torch.__version__,
        "python: " + sys.version.split()[0],
        "timing: CUDA events, %d warmup runs, best of %d trials of %d back-to-back runs" % (
            args.warmup, args.trials, args.repeats),
        "command: " + " ".join(shlex.quote(a) for a in [sys.executable] + sys.argv),
    ]
    lines += ["skipped: " + s for s in skipped]
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


class Gemm:
    """One dtype's operands and call for a shape."""

    def __init__(self, torch, dtype, m, n, k, device):
        self.torch = torch
        gen = torch.Generator(device=device).manual_seed(1234)
        if dtype == "fp8e4m3":
            # _scaled_mm wants A row-major (m x k) and B column-major (k x n), both fp8, with
            # per-tensor float32 scales; the output is bf16.
            a = torch.randn(m, k, device=device, generator=gen).to(torch.float8_e4m3fn)
            b = torch.randn(n, k, device=device, generator=gen).to(torch.float8_e4m3fn).t()
            one = torch.ones((), device=device, dtype=torch.float32)
            self.a, self.b, self.scale = a, b, one
            self.call = self._scaled
        else:
            tdtype = {"fp64": torch.float64, "fp32": torch.float32, "tf32": torch.float32,
                      "fp16": torch.float16, "bf16": torch.bfloat16}[dtype]
            self.a = torch.randn(m, k, device=device, generator=gen, dtype=tdtype)
            self.b = torch.randn(k, n, device=device, generator=gen, dtype=tdtype)
            self.out = torch.empty(m, n, device=device, dtype=tdtype)
            self.call = self._matmul

    def _matmul(self):
        self.torch.matmul(self.a, self.b, out=self.out)

    def _scaled(self):
        r = self.torch._scaled_mm(self.a, self.b, scale_a=self.scale, scale_b=self.scale,
                                  out_dtype=self.torch.bfloat16)
        return r[0] if isinstance(r, tuple) else r  # torch < 2.4 returned (out, amax)


def fp8_problem(torch, dev, m, n, k):
    """Why fp8 cannot run here, or None."""
    if (dev.major, dev.minor) < (8, 9):
        return "fp8 needs compute capability 8.9 or newer (this GPU is %d.%d)" % (dev.major, dev.minor)
    if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
        return "this torch (%s) has no torch._scaled_mm / float8_e4m3fn" % torch.__version__
    if m % 16 or n % 16 or k % 16:
        return "torch._scaled_mm needs m, n and k divisible by 16"
    return None


def time_gemm(torch, gemm, args):
    for _ in range(args.warmup):
        gemm.call()
    torch.cuda.synchronize()
    best = None
    for _ in range(args.trials):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(args.repeats):
            gemm.call()
        stop.record()
        stop.synchronize()
        seconds = start.elapsed_time(stop) / 1e3 / args.repeats
        best = seconds if best is None else min(best, seconds)
    return best


def main(argv):
    args = parse_args(argv)
    todo = shapes(args)
    if args.dry_run:
        print("# gemm_sweep.py dry run: %d shapes x dtypes %s -> %s (m,n,k,dtype,tflops)" % (
            len(todo), ",".join(args.dtype_list), args.out))
        print("# provenance -> " + provenance_path(args))
        print("m,n,k,source")
        for m, n, k, why in todo:
            print("%d,%d,%d,%s" % (m, n, k, why))
        return 0
    try:
        import torch  # pylint: disable=import-outside-toplevel
    except ImportError:
        sys.stderr.write("gemm_sweep.py: error: missing prerequisite: PyTorch with CUDA "
                         "(import torch failed for %s); install it, this script downloads nothing\n"
                         % sys.executable)
        return 1
    if not torch.cuda.is_available():
        sys.stderr.write("gemm_sweep.py: error: torch %s sees no CUDA GPU (torch.cuda.is_available() is False)\n"
                         % torch.__version__)
        return 1
    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    dev = torch.cuda.get_device_properties(args.device)
    rows, skipped = [], []
    for dtype in args.dtype_list:
        torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
        for m, n, k, why in todo:
            if dtype == "fp8e4m3":
                problem = fp8_problem(torch, dev, m, n, k)
                if problem:
                    skipped.append("%dx%dx%d %s: %s" % (m, n, k, dtype, problem))
                    sys.stderr.write("gemm_sweep.py: skip %dx%dx%d %s: %s\n" % (m, n, k, dtype, problem))
                    continue
            try:
                gemm = Gemm(torch, dtype, m, n, k, device)
                seconds = time_gemm(torch, gemm, args)
            except RuntimeError as e:  # out of memory (torch.cuda.OutOfMemoryError) or an unsupported shape
                reason = str(e).splitlines()[0] if str(e) else type(e).__name__
                skipped.append("%dx%dx%d %s: %s" % (m, n, k, dtype, reason))
                sys.stderr.write("gemm_sweep.py: skip %dx%dx%d %s: %s\n" % (m, n, k, dtype, reason))
                torch.cuda.empty_cache()
                continue
            del gemm
            tflops = 2.0 * m * n * k / seconds / 1e12
            rows.append((m, n, k, dtype, tflops))
            sys.stderr.write("gemm_sweep.py: %dx%dx%d %s (%s): %.1f TFLOP/s\n" % (m, n, k, dtype, why, tflops))
    if not rows:
        sys.stderr.write("gemm_sweep.py: error: no shape could be timed\n")
        return 1
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("m,n,k,dtype,tflops\n")
        for m, n, k, dtype, tflops in rows:
            f.write("%d,%d,%d,%s,%.2f\n" % (m, n, k, dtype, tflops))
    write_provenance(provenance_path(args), torch, args, skipped)
    sys.stderr.write("gemm_sweep.py: wrote %d rows to %s\n" % (len(rows), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
