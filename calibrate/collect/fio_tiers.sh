#!/usr/bin/env bash
# Runs fio on each storage tier (local NVMe, a shared filesystem, ...) for each access pattern,
# block size and queue depth, and keeps fio's JSON as OUTDIR/fio_<tier>_<rw>_<bs>_qd<qd>.json,
# which parse_fio_json reads. See calibrate/collect/README.md.
set -euo pipefail
COLLECT_PROG=${0##*/}
here=$([[ "$0" == */* ]] && printf '%s' "${0%/*}" || printf .)
# shellcheck source=common.sh source-path=SCRIPTDIR
source "$here/common.sh"

usage() {
  cat <<USAGE
usage: $COLLECT_PROG --tier NAME=PATH [--tier NAME=PATH ...] [options]

  --tier NAME=PATH   a folder on the tier to test (repeatable); fio writes its test files there
                     and removes them after each job. NAME: letters, digits, - and _
  --outdir DIR       output folder (default ./fathom-calibration)
  --rw LIST          fio --rw modes (default read,write,randread,randwrite)
  --bs LIST          block sizes (default 4k,64k,1M)
  --iodepth LIST     queue depths (default 1,32)
  --numjobs N        jobs per run, reported together (default 4)
  --size SIZE        file size per job (default 4G)
  --runtime SEC      seconds per run, time-based (default 30)
  --ioengine NAME    fio ioengine (default libaio)
  --direct 0|1       O_DIRECT (default 1)
  --fio PATH         fio executable (default fio)
  --dry-run          print the commands; run nothing
  -h, --help         this text
USAGE
}

tiers=()
outdir="fathom-calibration"
rw_arg="read,write,randread,randwrite"
bs_arg="4k,64k,1M"
qd_arg="1,32"
numjobs=4
size="4G"
runtime=30
ioengine="libaio"
direct=1
fio_cmd="fio"
dry_run=0
while (($#)); do
  case "$1" in
    --tier) need_value "$@"; tiers+=("$2"); shift 2 ;;
    --outdir) need_value "$@"; outdir="$2"; shift 2 ;;
    --rw) need_value "$@"; rw_arg="$2"; shift 2 ;;
    --bs) need_value "$@"; bs_arg="$2"; shift 2 ;;
    --iodepth) need_value "$@"; qd_arg="$2"; shift 2 ;;
    --numjobs) need_value "$@"; numjobs="$2"; shift 2 ;;
    --size) need_value "$@"; size="$2"; shift 2 ;;
    --runtime) need_value "$@"; runtime="$2"; shift 2 ;;
    --ioengine) need_value "$@"; ioengine="$2"; shift 2 ;;
    --direct) need_value "$@"; direct="$2"; shift 2 ;;
    --fio) need_value "$@"; fio_cmd="$2"; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown option '$1'" ;;
  esac
done

((${#tiers[@]} > 0)) || usage_error "give at least one --tier NAME=PATH (e.g. --tier nvme=/local/scratch)"
IFS=, read -r -a rws <<<"$rw_arg"
IFS=, read -r -a sizes <<<"$bs_arg"
IFS=, read -r -a depths <<<"$qd_arg"
for rw in "${rws[@]}"; do
  case "$rw" in
    read | write | randread | randwrite | rw | readwrite | randrw | trim | randtrim | trimwrite) ;;
    *) usage_error "--rw: '$rw' is not a fio --rw mode" ;;
  esac
done
for bs in "${sizes[@]}"; do
  [[ "$bs" =~ ^[0-9]+([kKmMgG]([iI]?[bB])?|[bB])?$ ]] || usage_error "--bs: expected sizes such as 4k or 1M, got '$bs'"
done
for qd in "${depths[@]}" "$numjobs" "$runtime"; do
  [[ "$qd" =~ ^[1-9][0-9]*$ ]] || usage_error "--iodepth, --numjobs and --runtime take whole numbers >= 1, got '$qd'"
done
[[ "$direct" == 0 || "$direct" == 1 ]] || usage_error "--direct: expected 0 or 1, got '$direct'"
[[ "$size" =~ ^[0-9]+[kKmMgGtT]?$ ]] || usage_error "--size: expected a size such as 4G, got '$size'"
names=()
paths=()
for tier in "${tiers[@]}"; do
  [[ "$tier" == *=* ]] || usage_error "--tier: expected NAME=PATH, got '$tier'"
  name="${tier%%=*}"
  path="${tier#*=}"
  [[ "$name" =~ ^[A-Za-z0-9_-]+$ ]] || usage_error "--tier: NAME may hold letters, digits, - and _; got '$name'"
  [[ -n "$path" ]] || usage_error "--tier $name: empty PATH"
  names+=("$name")
  paths+=("$path")
done

if ((!dry_run)); then
  need_cmd "$fio_cmd" "fio, the flexible I/O tester; install it (e.g. apt-get install fio) or pass --fio" || true
  for i in "${!names[@]}"; do
    if [[ ! -d "${paths[i]}" || ! -w "${paths[i]}" ]]; then
      MISSING_TOOLS+=("${paths[i]} (folder of tier ${names[i]}: not a writable directory)")
    fi
  done
  report_missing
  mkdir -p "$outdir/provenance/fio"
fi

runs=0
failed=()
for i in "${!names[@]}"; do
  for rw in "${rws[@]}"; do
    for bs in "${sizes[@]}"; do
      for qd in "${depths[@]}"; do
        job="${names[i]}_${rw}_${bs}_qd${qd}"
        json="$outdir/fio_$job.json"
        cmd=("$fio_cmd" "--name=$job" "--directory=${paths[i]}" "--rw=$rw" "--bs=$bs" "--iodepth=$qd"
          "--numjobs=$numjobs" "--ioengine=$ioengine" "--direct=$direct" "--size=$size"
          "--runtime=$runtime" --time_based --group_reporting --unlink=1
          --output-format=json "--output=$json")
        line=$(quote_cmd "${cmd[@]}")
        runs=$((runs + 1))
        if ((dry_run)); then
          printf '# -> %s\n%s\n' "$json" "$line"
          continue
        fi
        note "[$runs] $job"
        printf '%s\n' "$line" >>"$outdir/provenance/fio/commands.txt"
        rc=0
        "${cmd[@]}" >"$outdir/provenance/fio/$job.stdout" 2>&1 || rc=$?
        [[ -s "$outdir/provenance/fio/$job.stdout" ]] || rm -f "$outdir/provenance/fio/$job.stdout"
        if ((rc != 0)) || ! grep -q '"jobs"' "$json" 2>/dev/null; then
          mkdir -p "$outdir/provenance/fio/failed"
          [[ -e "$json" ]] && mv "$json" "$outdir/provenance/fio/failed/"
          failed+=("$job (exit $rc; see $outdir/provenance/fio/)")
          warn "$job failed (exit $rc)"
        fi
      done
    done
  done
done

((dry_run)) && exit 0
if ((${#failed[@]})); then
  printf '%s: %d of %d runs failed:\n' "$COLLECT_PROG" "${#failed[@]}" "$runs" >&2
  printf '  - %s\n' "${failed[@]}" >&2
  exit 1
fi
note "wrote $runs fio JSON files to $outdir"
