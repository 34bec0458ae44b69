#!/usr/bin/env python3
"""Fuzz the fathom command as an adversarial user would (issue 13).

Each iteration takes a real input (an example scenario, a flows file, an nccl-tests log, a
--set override), mutates it (extreme and malformed values, deleted or repeated lines, stray
bytes, other line endings, truncation), runs the real `fathom` on it, and checks what a user
must be able to rely on:

  - the exit code is 0, 1 or 2: never a crash, an internal error (3), a signal;
  - an error (exit 2) is one line starting `fathom: error:` that names where: a file (with its
    line where it has one), a flag, or the `--set` that wrote the value;
  - a result (exit 0 or 1) holds no impossible figure: no NaN or infinity, no negative time, no
    zero makespan or step time with work to do;
  - no run runs out of memory (the memory estimate refuses it first) and no temporary file is
    left beside an output.

The mutations come from a seeded generator, so a failure replays with the same --seed. CTest
runs a fixed number of iterations; bench/ runs the long mode (--iterations 5000).

    python3 tests/fuzz/cli_fuzz.py BUILD SOURCE [--iterations N] [--seed S] [--timeout SECONDS]
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

EXTREMES = ["0", "-1", "1e30", "1e-30", "9223372036854775808", "'8'", "\"\"", "nan", ".inf", "-0",
            "1PB", "1bps", "0s", "1e9", "2147483647", "[]", "{}", "~", "x" * 300, "1.5", "yes"]

SCENARIOS = ["scenarios/examples/pilot-16-nodes.yaml", "scenarios/examples/fat-tree-a2a-64.yaml",
             "scenarios/examples/fat-tree-1024-permutation.yaml", "scenarios/examples/what-if-faster-gpu.yaml",
             "scenarios/examples/dgx-h100-node.yaml", "scenarios/examples/llama3-8b-serving.yaml"]

OVERRIDE_KEYS = ["cluster.nodes", "seed", "workload.global_batch", "workload.micro_batch", "workload.bytes",
                 "workload.endpoints", "workload.sequence", "workload.parallel.tp", "workload.parallel.pp",
                 "collectives.max_slices", "collectives.slice", "cluster.fabric.links[0].bandwidth",
                 "cluster.fabric.spines", "workload.tokens", "workload.start_window", "cluster.node",
                 "workload.requests.rate", "workload.requests.count", "workload.serving.tp",
                 "workload.serving.max_batched_tokens", "workload.serving.max_seqs", "workload.serving.replicas",
                 "workload.requests.output_tokens", "workload.slo.tpot"]

LOGS = ["data/calibration-data/hgx-h100-ib-2node/G_gj-aion_2node_Ring_MIN_CTAS24_QPS2_1M-8G.log",
        "data/calibration-data/hgx-h100-ib-2node/A_qoofyk_2node_XE9680_8B-16G.csv"]


def mutate_text(rng, text):
    """One mutation of a text file, as bytes."""
    lines = text.split("\n")
    choice = rng.randrange(9)
    i = rng.randrange(len(lines))
    if choice == 0:  # a value replaced by an extreme one
        line = lines[i]
        tokens = list(re.finditer(r"[-+]?[0-9][0-9.eE+-]*[A-Za-z/%]*", line))
        if tokens:
            t = rng.choice(tokens)
            lines[i] = line[:t.start()] + rng.choice(EXTREMES) + line[t.end():]
    elif choice == 1:
        del lines[i]
    elif choice == 2:
        lines.insert(i, lines[i])
    elif choice == 3:  # stray bytes
        lines[i] = lines[i] + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8))).decode("latin-1")
    elif choice == 4:
        return "\r".join(lines).encode("latin-1", "replace")
    elif choice == 5:
        return "\r\n".join(lines).encode("latin-1", "replace")
    elif choice == 6:  # truncated
        return "\n".join(lines).encode("latin-1", "replace")[: rng.randrange(len(text) + 1)]
    elif choice == 7:  # an indentation slip
        lines[i] = " " + lines[i]
    else:  # a number scaled far out
        line = lines[i]
        tokens = list(re.finditer(r"\b[0-9]+\b", line))
        if tokens:
            t = rng.choice(tokens)
            lines[i] = line[:t.start()] + t.group() + "000000" + line[t.end():]
    return "\n".join(lines).encode("latin-1", "replace")


def located(message, inputs):
    """An error names a file, a flag or the --set it came from."""
    body = message[len("fathom: error: "):]
    if body.startswith("-") or body.startswith("--set "):
        return True
    return any(os.path.basename(p) in body for p in inputs)


IMPOSSIBLE = [re.compile(r"\b(nan|inf|infinity)\b", re.I), re.compile(r"makespan\s+0\.000 ms"),
              re.compile(r"step time 0\.000 s"), re.compile(r"mean -[0-9]"), re.compile(r"time\s+-[0-9]")]


def check_run(name, cmd, inputs, workdir, timeout, env, failures, say=print):
    try:
        r = subprocess.run(cmd, cwd=workdir, capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        say(f"slow (over {timeout} s, not a failure): {name}")
        return
    out = r.stdout.decode("utf-8", "replace")
    err = r.stderr.decode("utf-8", "replace")
    problems = []
    # Under the sanitizers a finding halts with exit 1, which alone would pass for a failed
    # expectation: their report on stderr is what tells.
    for finding in ("runtime error:", "AddressSanitizer", "LeakSanitizer", "ThreadSanitizer"):
        if finding in err:
            problems.append(f"sanitizer: {finding}")
    if r.returncode not in (0, 1, 2):
        problems.append(f"exit {r.returncode}")
    if r.returncode == 2:
        first = err.strip().split("\n")[0] if err.strip() else ""
        if not first.startswith("fathom: error: "):
            problems.append("error without 'fathom: error:'")
        elif not located(first, inputs):
            problems.append("error without location")
        if "out of memory" in first:
            problems.append("ran out of memory: the estimate let it through")
        if len(first) > 2000:
            problems.append(f"error line of {len(first)} bytes")
    else:
        for pattern in IMPOSSIBLE:
            m = pattern.search(out)
            if m:
                problems.append(f"impossible figure {m.group()!r}")
    if any(".tmp-" in f for f in os.listdir(workdir)):
        problems.append("temporary file left")
    if problems:
        failures.append(name)
        say(f"FAILED: {name}: {'; '.join(problems)}\n  command: {' '.join(cmd)}\n  stderr: {err[:500]}")


def check_the_checks(work, env):
    """The checks catch what they are for: runs that break each rule must be reported."""
    broken = {
        "a crash": "kill -SEGV $$",
        "an internal error": "exit 3",
        "an error without prefix": "echo 'std::bad_alloc' >&2; exit 2",
        "an error without location": "echo 'fathom: error: something is wrong' >&2; exit 2",
        "a zero makespan": "echo '  makespan                 0.000 ms'",
        "a NaN": "echo 'step time nan s'",
        "a negative mean": "echo 'flow completion time     mean -3.000 ms'",
        "a temporary left": "touch out.json.tmp-1-0",
        "out of memory": "echo 'fathom: error: out of memory: x.yaml' >&2; exit 2",
        "a sanitizer finding": "echo 'time.hpp:60:69: runtime error: signed integer overflow' >&2; exit 1",
    }
    missed = []
    for name, script in broken.items():
        failures = []
        check_run(name, ["/bin/sh", "-c", script], ["x.yaml"], work, 10, env, failures, say=lambda _: None)
        for f in os.listdir(work):
            os.remove(os.path.join(work, f))
        if not failures:
            missed.append(name)
    fine = []
    check_run("a located error", ["/bin/sh", "-c", "echo 'fathom: error: x.yaml:3:5: a: expected b' >&2; exit 2"],
              ["x.yaml"], work, 10, env, fine, say=lambda _: None)
    if missed or fine:
        print(f"FAILED: the harness missed: {missed}; flagged a good run: {fine}")
        return False
    print(f"the checks catch each of {len(broken)} broken runs and pass a good one")
    return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("source")
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120)
    a = parser.parse_args()
    fathom = os.path.abspath(os.path.join(a.build, "fathom"))
    source = os.path.abspath(a.source)
    rng = random.Random(a.seed)
    env = dict(os.environ)
    failures = []
    with tempfile.TemporaryDirectory() as work:
        if not check_the_checks(work, env):
            return 1
        for it in range(a.iterations):
            kind = rng.randrange(4)
            name = f"iteration {it} (seed {a.seed})"
            if kind <= 1:  # a mutated scenario
                src = rng.choice(SCENARIOS)
                with open(os.path.join(source, src), encoding="utf-8") as f:
                    data = mutate_text(rng, f.read())
                path = os.path.join(work, "fuzzed.yaml")
                with open(path, "wb") as f:
                    f.write(data)
                command = "nccl-tests" if "dgx-h100-node" in src else "simulate"
                cmd = [fathom, command, path, "-q"] + (["--json", "out.json"] if "pilot" in src or "serving" in src else [])
                check_run(f"{name}: {command} mutated {src}", cmd, [path, "out.json"], work, a.timeout, env, failures)
            elif kind == 2:  # an extreme --set on an example
                src = rng.choice([s for s in SCENARIOS if "dgx-h100-node" not in s])
                override = f"{rng.choice(OVERRIDE_KEYS)}={rng.choice(EXTREMES)}"
                cmd = [fathom, "simulate", os.path.join(source, src), "-q", "--set", override]
                check_run(f"{name}: simulate {src} --set {override}", cmd, [src], work, a.timeout, env, failures)
            else:  # a mutated nccl-tests log or CSV, validated against the pilot's fabric
                src = rng.choice(LOGS)
                with open(os.path.join(source, src), encoding="utf-8") as f:
                    data = mutate_text(rng, f.read())
                path = os.path.join(work, "fuzzed" + os.path.splitext(src)[1])
                with open(path, "wb") as f:
                    f.write(data)
                cmd = [fathom, "validate", path, "--scenario", os.path.join(source, SCENARIOS[0]), "-q",
                       "-o", "table.txt"]
                check_run(f"{name}: validate mutated {src}", cmd, [path, "table.txt"], work, a.timeout, env, failures)
            for leftover in ("out.json", "table.txt"):
                if os.path.exists(os.path.join(work, leftover)):
                    os.remove(os.path.join(work, leftover))
    print(f"cli fuzz: {a.iterations} runs, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
