#!/usr/bin/env bash
# Runs the nccl-tests binaries over a size sweep on one node and on N nodes, with NCCL's default
# algorithm and with NCCL_ALGO=Ring, and keeps each run's output as
# OUTDIR/<op>_<nodes>node_<algo>[_<proto>].log: the command line first (fathom's parser reads the
# binary, -b/-e/-f/-g and NCCL_* settings from it), then what nccl-tests printed, verbatim.
# See calibrate/collect/README.md.
set -euo pipefail
COLLECT_PROG=${0##*/}
here=$([[ "$0" == */* ]] && printf '%s' "${0%/*}" || printf .)
# shellcheck source=common.sh source-path=SCRIPTDIR
source "$here/common.sh"

ALL_OPS="all_reduce,all_gather,reduce_scatter,alltoall,sendrecv,broadcast"

usage() {
  cat <<USAGE
usage: $COLLECT_PROG [options]

Runs nccl-tests (${ALL_OPS//,/, }) with -b 8 -e MAX -f 2 on 1 node
(one process, -g GPUS) and, with --nodes N > 1, on N nodes (mpirun, one GPU per process, -g 1),
once with NCCL's own algorithm choice and once with NCCL_ALGO=Ring.

  --nodes N             also run on N nodes (default 1: single-node runs only)
  --hostfile FILE       MPI hostfile for the N-node runs (required when N > 1)
  --gpus-per-node G     GPUs per node (default: the number nvidia-smi lists)
  --nccl-tests-dir DIR  where the *_perf binaries are (DIR or DIR/build; default \$NCCL_TESTS_DIR,
                        else the directory of all_reduce_perf in PATH)
  --outdir DIR          output folder (default ./fathom-calibration)
  --ops LIST            comma-separated ops (default $ALL_OPS)
  --max-bytes SIZE      largest message, nccl-tests -e (default 8G)
  --algos LIST          comma-separated: default (NCCL chooses) and/or NCCL_ALGO values (default default,Ring)
  --proto PROTO         also force NCCL_PROTO=PROTO (Simple, LL, LL128) in every run; adds _PROTO to the names
  --mpirun CMD          MPI launcher (default mpirun)
  --mpi-flavor F        openmpi (-x NAME=VALUE, --map-by ppr:G:node; default) or hydra (MPICH/Intel MPI:
                        -genv NAME VALUE, -ppn G)
  --mpi-args "ARGS"     extra launcher arguments, split on spaces (e.g. "--mca btl_tcp_if_include eth0")
  --single-node-mpi     run the 1-node sweep through the launcher too (-g 1 per process)
  --dry-run             print the commands and the files they would write; run nothing
  -h, --help            this text
USAGE
}

nodes=1
hostfile=""
gpus_per_node=""
tests_dir="${NCCL_TESTS_DIR:-}"
outdir="fathom-calibration"
ops_arg="$ALL_OPS"
max_bytes="8G"
algos_arg="default,Ring"
proto=""
mpirun_cmd="mpirun"
mpi_flavor="openmpi"
mpi_args=""
single_node_mpi=0
dry_run=0

while (($#)); do
  case "$1" in
    --nodes) need_value "$@"; nodes="$2"; shift 2 ;;
    --hostfile) need_value "$@"; hostfile="$2"; shift 2 ;;
    --gpus-per-node) need_value "$@"; gpus_per_node="$2"; shift 2 ;;
    --nccl-tests-dir) need_value "$@"; tests_dir="$2"; shift 2 ;;
    --outdir) need_value "$@"; outdir="$2"; shift 2 ;;
    --ops) need_value "$@"; ops_arg="$2"; shift 2 ;;
    --max-bytes) need_value "$@"; max_bytes="$2"; shift 2 ;;
    --algos) need_value "$@"; algos_arg="$2"; shift 2 ;;
    --proto) need_value "$@"; proto="$2"; shift 2 ;;
    --mpirun) need_value "$@"; mpirun_cmd="$2"; shift 2 ;;
    --mpi-flavor) need_value "$@"; mpi_flavor="$2"; shift 2 ;;
    --mpi-args) need_value "$@"; mpi_args="$2"; shift 2 ;;
    --single-node-mpi) single_node_mpi=1; shift ;;
    --dry-run) dry_run=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown option '$1'" ;;
  esac
done

[[ "$nodes" =~ ^[1-9][0-9]*$ ]] || usage_error "--nodes: expected a whole number >= 1, got '$nodes'"
[[ -z "$gpus_per_node" || "$gpus_per_node" =~ ^[1-9][0-9]*$ ]] ||
  usage_error "--gpus-per-node: expected a whole number >= 1, got '$gpus_per_node'"
[[ "$max_bytes" =~ ^[0-9]+[KkMmGgTt]?$ ]] || usage_error "--max-bytes: expected a size such as 8G or 1048576, got '$max_bytes'"
[[ "$mpi_flavor" == openmpi || "$mpi_flavor" == hydra ]] ||
  usage_error "--mpi-flavor: expected openmpi or hydra, got '$mpi_flavor'"
[[ -z "$proto" || "$proto" =~ ^[A-Za-z0-9]+$ ]] || usage_error "--proto: expected a name such as Simple, LL or LL128"

IFS=, read -r -a ops <<<"$ops_arg"
for op in "${ops[@]}"; do
  [[ ",$ALL_OPS," == *",$op,"* ]] || usage_error "--ops: unknown op '$op' (known: $ALL_OPS)"
done
IFS=, read -r -a algos <<<"$algos_arg"
for algo in "${algos[@]}"; do
  [[ "$algo" =~ ^[A-Za-z0-9_]+$ ]] || usage_error "--algos: expected names such as default,Ring,Tree, got '$algo'"
done
((${#ops[@]} > 0 && ${#algos[@]} > 0)) || usage_error "--ops and --algos need at least one entry"
mpi_extra=()
if [[ -n "$mpi_args" ]]; then
  read -r -a mpi_extra <<<"$mpi_args"
fi

needs_mpi=0
if ((nodes > 1 || single_node_mpi)); then needs_mpi=1; fi
if ((nodes > 1)) && [[ -z "$hostfile" ]]; then
  usage_error "--nodes $nodes needs --hostfile (one line per node, e.g. 'node1 slots=8')"
fi

# --- where the binaries are ------------------------------------------------------------------
if [[ -z "$tests_dir" ]]; then
  if found=$(command -v all_reduce_perf 2>/dev/null); then
    tests_dir=$(dirname "$found")
  fi
fi
binary_of() {
  local op="$1"
  if [[ -n "$tests_dir" && -x "$tests_dir/${op}_perf" ]]; then
    printf '%s\n' "$tests_dir/${op}_perf"
  elif [[ -n "$tests_dir" && -x "$tests_dir/build/${op}_perf" ]]; then
    printf '%s\n' "$tests_dir/build/${op}_perf"
  else
    printf '%s\n' "${tests_dir:-.}/${op}_perf"
  fi
}

# --- prerequisites ---------------------------------------------------------------------------
if ((!dry_run)); then
  for op in "${ops[@]}"; do
    need_cmd "$(binary_of "$op")" "nccl-tests binary; build nccl-tests (make MPI=1 for multi-node) and pass --nccl-tests-dir" || true
  done
  if ((needs_mpi)); then
    need_cmd "$mpirun_cmd" "MPI launcher for multi-node runs; pass --mpirun" || true
    if [[ -n "$hostfile" && ! -r "$hostfile" ]]; then
      MISSING_TOOLS+=("$hostfile (the --hostfile: not a readable file)")
    fi
  fi
  if [[ -z "$gpus_per_node" ]]; then
    need_cmd nvidia-smi "to count the GPUs; or pass --gpus-per-node" || true
  fi
  report_missing
fi

if [[ -z "$gpus_per_node" ]]; then
  if command -v nvidia-smi >/dev/null 2>&1 && gpus_per_node=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ') &&
    ((gpus_per_node > 0)); then
    :
  elif ((dry_run)); then
    gpus_per_node=8
    note "--gpus-per-node not given and no GPUs found; the dry run assumes 8"
  else
    die "nvidia-smi lists no GPUs on $(hostname); pass --gpus-per-node"
  fi
fi

for var in NCCL_ALGO NCCL_PROTO; do
  if [[ -n "${!var:-}" ]]; then
    warn "$var=${!var} is set in this shell; the 'default' runs unset it so that NCCL chooses"
  fi
done

# --- the commands ----------------------------------------------------------------------------
# One run: fills the array `cmd` for OP on NODES nodes with ALGO ("default" = NCCL's choice).
build_cmd() {
  local op="$1" run_nodes="$2" algo="$3"
  local binary
  binary=$(binary_of "$op")
  local -a env_settings=(NCCL_DEBUG=VERSION)
  [[ "$algo" != default ]] && env_settings+=("NCCL_ALGO=$algo")
  [[ -n "$proto" ]] && env_settings+=("NCCL_PROTO=$proto")
  local -a test_args=(-b 8 -e "$max_bytes" -f 2)
  if ((run_nodes == 1 && !single_node_mpi)); then
    cmd=(env "${env_settings[@]}" "$binary" "${test_args[@]}" -g "$gpus_per_node")
    return
  fi
  local ranks=$((run_nodes * gpus_per_node))
  cmd=("$mpirun_cmd" -np "$ranks")
  if [[ -n "$hostfile" ]]; then
    if [[ "$mpi_flavor" == openmpi ]]; then cmd+=(--hostfile "$hostfile"); else cmd+=(-f "$hostfile"); fi
  fi
  local setting
  if [[ "$mpi_flavor" == openmpi ]]; then
    cmd+=(--map-by "ppr:${gpus_per_node}:node" --bind-to none)
    for setting in "${env_settings[@]}"; do cmd+=(-x "$setting"); done
  else
    cmd+=(-ppn "$gpus_per_node")
    for setting in "${env_settings[@]}"; do cmd+=(-genv "${setting%%=*}" "${setting#*=}"); done
  fi
  cmd+=("${mpi_extra[@]}" "$binary" "${test_args[@]}" -g 1)
}

node_counts=(1)
((nodes > 1)) && node_counts+=("$nodes")

if ((!dry_run)); then
  mkdir -p "$outdir/provenance/nccl"
fi

failed=()
runs=0
for run_nodes in "${node_counts[@]}"; do
  for algo in "${algos[@]}"; do
    for op in "${ops[@]}"; do
      build_cmd "$op" "$run_nodes" "$algo"
      name="${op}_${run_nodes}node_${algo}${proto:+_$proto}"
      log="$outdir/$name.log"
      line=$(quote_cmd "${cmd[@]}")
      runs=$((runs + 1))
      if ((dry_run)); then
        printf '# -> %s\n%s\n' "$log" "$line"
        continue
      fi
      note "[$runs] $name"
      err="$outdir/provenance/nccl/$name.stderr"
      rc=0
      {
        printf '%s\n' "$line"
        (
          unset NCCL_ALGO NCCL_PROTO
          exec "${cmd[@]}"
        ) 2>"$err"
      } >"$log" || rc=$?
      printf '%s\n' "$line" >>"$outdir/provenance/nccl/commands.txt"
      if ((rc != 0)) || ! grep -q '^ *[0-9]' "$log"; then
        # A partial log would stop `fathom calibrate` on the folder; keep it aside for a look.
        mkdir -p "$outdir/provenance/nccl/failed"
        mv "$log" "$outdir/provenance/nccl/failed/"
        failed+=("$name (exit $rc; see $outdir/provenance/nccl/failed/$name.log and $err)")
        warn "$name failed (exit $rc)"
      else
        [[ -s "$err" ]] || rm -f "$err"
      fi
    done
  done
done

if ((dry_run)); then
  exit 0
fi
if ((${#failed[@]})); then
  printf '%s: %d of %d runs failed:\n' "$COLLECT_PROG" "${#failed[@]}" "$runs" >&2
  printf '  - %s\n' "${failed[@]}" >&2
  exit 1
fi
note "wrote $runs logs to $outdir"
