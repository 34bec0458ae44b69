"""What the Python collectors share: where a measurement's provenance sidecar goes and how a
helper command's output is read. The sidecar lives under OUTDIR/provenance/, because fathom
calibrate reads every file at the top of a folder as a measurement."""

import os
import subprocess


def provenance_path(args):
    """--provenance, else OUT's folder/provenance/OUT-name.provenance.txt."""
    if args.provenance:
        return args.provenance
    folder, name = os.path.split(os.path.abspath(args.out))
    return os.path.join(folder, "provenance", name + ".provenance.txt")


def run_text(cmd):
    """A command's stripped stdout, or "" when it cannot run (a missing nvidia-smi is no error)."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
