#!/usr/bin/env bash
# Runs every collector into one folder that `fathom calibrate OUTDIR -o profile.yaml` reads:
# nccl-tests logs, the GEMM sweep, HBM bandwidth, fio per storage tier and nvbandwidth, with
# OUTDIR/provenance/PROVENANCE.md saying where, when, on what and with which commands.
# See calibrate/collect/README.md.
set -euo pipefail
COLLECT_PROG=${0##*/}
here=$([[ "$0" == */* ]] && printf '%s' "${0%/*}" || printf .)
# shellcheck source=common.sh source-path=SCRIPTDIR
source "$here/common.sh"

STEPS="nccl,gemm,hbm,fio,nvbandwidth"

usage() {
  cat <<USAGE
usage: $COLLECT_PROG --outdir DIR [options]

  --outdir DIR          output folder (default ./fathom-calibration)
  --skip LIST           steps to leave out, from $STEPS
  --dry-run             print every command; run nothing
 nccl-tests (nccl_sweep.sh):
  --nodes N, --hostfile FILE, --gpus-per-node G, --nccl-tests-dir DIR, --max-bytes SIZE,
  --ops LIST, --mpi-args "ARGS"
 GEMM (gemm_sweep.py) and HBM (hbm_bandwidth.py or babelstream.sh):
  --python PATH         Python with PyTorch (default python3 in PATH)
  --dtypes LIST         GEMM data types (default bf16,fp16,fp8e4m3)
  --hidden H --ffn F --tokens T   add a transformer layer's GEMMs
  --babelstream PATH    measure HBM with this BabelStream binary instead of PyTorch
 storage (fio_tiers.sh):
  --tier NAME=PATH      repeatable; without any, the fio step is skipped
  --fio-runtime SEC     seconds per fio run (default 30)
 nvbandwidth:
  --nvbandwidth PATH    nvbandwidth executable (default nvbandwidth in PATH)
  -h, --help            this text
USAGE
}

outdir="fathom-calibration"
skip=""
dry_run=0
nccl_args=()
python_cmd="python3"
gemm_args=()
babelstream=""
fio_args=()
have_tier=0
nvbandwidth="nvbandwidth"
while (($#)); do
  case "$1" in
    --outdir) need_value "$@"; outdir="$2"; shift 2 ;;
    --skip) need_value "$@"; skip="$2"; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    --nodes | --hostfile | --gpus-per-node | --nccl-tests-dir | --max-bytes | --ops | --mpi-args)
      need_value "$@"; nccl_args+=("$1" "$2"); shift 2 ;;
    --python) need_value "$@"; python_cmd="$2"; shift 2 ;;
    --dtypes | --hidden | --ffn | --tokens) need_value "$@"; gemm_args+=("$1" "$2"); shift 2 ;;
    --babelstream) need_value "$@"; babelstream="$2"; shift 2 ;;
    --tier) need_value "$@"; fio_args+=(--tier "$2"); have_tier=1; shift 2 ;;
    --fio-runtime) need_value "$@"; fio_args+=(--runtime "$2"); shift 2 ;;
    --nvbandwidth) need_value "$@"; nvbandwidth="$2"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown option '$1'" ;;
  esac
done
IFS=, read -r -a skipped <<<"$skip"
for s in "${skipped[@]}"; do
  [[ ",$STEPS," == *",$s,"* ]] || usage_error "--skip: unknown step '$s' (steps: $STEPS)"
done
wants() { [[ ",$skip," != *",$1,"* ]]; }
if wants fio && ((!have_tier)); then
  note "no --tier given: the fio step is skipped"
  skip+=",fio"
fi

# --- every prerequisite, before anything runs ------------------------------------------------
if ((!dry_run)); then
  if wants gemm || { wants hbm && [[ -z "$babelstream" ]]; }; then
    if need_cmd "$python_cmd" "Python 3 with PyTorch; pass --python"; then
      if ! "$python_cmd" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
        MISSING_TOOLS+=("PyTorch with a CUDA GPU for $python_cmd (import torch or torch.cuda.is_available() failed)")
      fi
    fi
  fi
  if wants hbm && [[ -n "$babelstream" ]]; then
    need_cmd "$babelstream" "BabelStream (--babelstream)" || true
  fi
  if wants fio; then need_cmd fio "fio; install it or --skip fio" || true; fi
  if wants nvbandwidth; then need_cmd "$nvbandwidth" "nvbandwidth; build it, pass --nvbandwidth, or --skip nvbandwidth" || true; fi
  report_missing
  # nccl_sweep.sh, fio_tiers.sh and babelstream.sh check their own tools again before they run.
  mkdir -p "$outdir/provenance"
fi

provenance="$outdir/provenance/PROVENANCE.md"
dry=()
((dry_run)) && dry=(--dry-run)
commands=()
failed=()

# step NAME COMMAND...: runs (or with --dry-run prints) one collector, recording the command.
step() {
  local name="$1"
  shift
  local line
  line=$(quote_cmd "$@")
  commands+=("$line")
  note "== $name: $line"
  if ! "$@" "${dry[@]}"; then
    failed+=("$name")
    warn "step $name failed; the other steps go on"
  fi
}

if wants nccl; then
  step nccl bash "$here/nccl_sweep.sh" --outdir "$outdir" "${nccl_args[@]}"
fi
if wants gemm; then
  step gemm "$python_cmd" "$here/gemm_sweep.py" --out "$outdir/gemm.csv" "${gemm_args[@]}"
fi
if wants hbm; then
  if [[ -n "$babelstream" ]]; then
    step hbm bash "$here/babelstream.sh" --binary "$babelstream" --outdir "$outdir"
  else
    step hbm "$python_cmd" "$here/hbm_bandwidth.py" --out "$outdir/hbm.csv"
  fi
fi
if wants fio; then
  step fio bash "$here/fio_tiers.sh" --outdir "$outdir" "${fio_args[@]}"
fi
if wants nvbandwidth; then
  line=$(quote_cmd "$nvbandwidth")
  commands+=("$line > $outdir/nvbandwidth.txt")
  if ((dry_run)); then
    printf '# -> %s\n%s\n' "$outdir/nvbandwidth.txt" "$line"
  elif ! "$nvbandwidth" >"$outdir/nvbandwidth.txt" 2>"$outdir/provenance/nvbandwidth.stderr"; then
    mkdir -p "$outdir/provenance/failed"
    mv "$outdir/nvbandwidth.txt" "$outdir/provenance/failed/"
    failed+=(nvbandwidth)
    warn "nvbandwidth failed; see $outdir/provenance/"
  fi
fi

((dry_run)) && exit 0

gpu_info=$(nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "nvidia-smi unavailable")
version_of() { "$@" 2>&1 | head -n 1 || true; }
# shellcheck disable=SC2016  # the backquotes are Markdown
{
  printf '# Calibration measurements\n\n'
  printf 'Collected by `calibrate/collect/collect_all.sh` (fathom).\n\n'
  printf -- '- host: %s\n' "$(hostname)"
  printf -- '- date: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  printf -- '- kernel: %s\n' "$(uname -sr)"
  printf -- '- nvcc: %s\n' "$(nvcc --version 2>/dev/null | tail -n 1 || echo unavailable)"
  printf -- '- python: %s\n' "$(version_of "$python_cmd" --version)"
  printf -- '- torch: %s\n' "$("$python_cmd" -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda)' 2>/dev/null || echo unavailable)"
  printf -- '- mpirun: %s\n' "$(version_of mpirun --version)"
  printf -- '- fio: %s\n' "$(version_of fio --version)"
  printf -- '- NCCL: see the `NCCL version` line of each nccl-tests log\n'
  printf -- '- steps that failed: %s\n\n' "${failed[*]:-none}"
  printf '## GPUs (nvidia-smi: index, name, driver, memory)\n\n```\n%s\n```\n\n' "$gpu_info"
  printf '## Commands\n\n```\n'
  printf '%s\n' "${commands[@]}"
  printf '```\n\nThen: `fathom calibrate %s -o profile.yaml`\n' "$outdir"
} >"$provenance"
note "provenance in $provenance"
if ((${#failed[@]})); then
  die "steps failed: ${failed[*]} (their partial output is under $outdir/provenance/)"
fi
note "done: fathom calibrate $outdir -o profile.yaml"
