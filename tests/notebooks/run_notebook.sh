#!/usr/bin/env bash
# Executes a notebook under notebooks/ headless with Debian's Jupyter (scripts/install-deps.sh
# installs it) and fails if any cell raises; the notebooks end with assertions on fathom's
# results. The executed copy goes to a temporary folder, so the committed notebook stays clean.
#   run_notebook.sh BUILD_DIR SOURCE_DIR [NOTEBOOK]   (NOTEBOOK defaults to what-if-fabric.ipynb)
set -euo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
notebook="$source_dir/notebooks/${3:-what-if-fabric.ipynb}"

# Debian's interpreter and Jupyter, never whichever python3 is first on PATH (it may be another
# installation without matplotlib, pandas or ipykernel).
python=/usr/bin/python3
if [ -x /usr/bin/jupyter-nbconvert ]; then
  nbconvert=(/usr/bin/jupyter-nbconvert)
elif [ -x /usr/bin/jupyter ]; then
  nbconvert=(/usr/bin/jupyter nbconvert)
else
  echo "FAILED: Debian's jupyter-nbconvert is not installed (run scripts/install-deps.sh)"
  exit 1
fi
if ! "$python" -c 'import ipykernel, matplotlib, nbclient, pandas, yaml' 2>/dev/null; then
  echo "FAILED: $python lacks ipykernel, matplotlib, nbclient, pandas or yaml (run scripts/install-deps.sh)"
  exit 1
fi
if [ ! -f "$notebook" ]; then echo "FAILED: no notebook $notebook"; exit 1; fi
if [ ! -x "$build/fathom" ]; then echo "FAILED: no fathom binary in $build"; exit 1; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Keep Jupyter, IPython and matplotlib away from the user's home (their config, kernels and
# caches) and from another interpreter's modules.
export FATHOM_BIN="$build/fathom"
export FATHOM_SOURCE_DIR="$source_dir"
export JUPYTER_CONFIG_DIR="$work/jupyter-config"
export JUPYTER_DATA_DIR="$work/jupyter-data"
export JUPYTER_RUNTIME_DIR="$work/jupyter-runtime"
export IPYTHONDIR="$work/ipython"
export MPLCONFIGDIR="$work/matplotlib"
export MPLBACKEND=Agg
export PYDEVD_DISABLE_FILE_VALIDATION=1
unset PYTHONPATH PYTHONHOME PYTHONSTARTUP JUPYTER_PATH

start=$(date +%s.%N)
if ! "${nbconvert[@]}" --to notebook --execute --output-dir "$work/out" \
     --ExecutePreprocessor.timeout=600 --ExecutePreprocessor.kernel_name=python3 \
     "$notebook" > "$work/nbconvert.log" 2>&1; then
  cat "$work/nbconvert.log"
  echo "FAILED: executing $notebook"
  exit 1
fi
end=$(date +%s.%N)

# Print the notebook's text output (the tables' summaries and the final checks) for the log.
"$python" - "$work/out/$(basename "$notebook")" <<'EOF'
import json
import sys

nb = json.load(open(sys.argv[1], encoding="utf-8"))
for cell in nb["cells"]:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            sys.stdout.write("".join(out["text"]))
EOF
awk -v s="$start" -v e="$end" -v n="$(basename "$notebook")" \
  'BEGIN { printf "PASSED: %s executed in %.1f s\n", n, e - s }'
