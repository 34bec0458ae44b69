#!/usr/bin/env bash
# Runs BabelStream (CUDA or HIP build) with --csv and keeps its output: the whole of stdout
# unchanged in OUTDIR/provenance/, and the CSV table itself (from its header line on, unchanged)
# as OUTDIR/hbm_babelstream.csv, which parse_babelstream_csv reads. The CUDA/HIP builds print
# "Using CUDA device ..." lines before the CSV even with --csv; they stay in the raw copy.
# See calibrate/collect/README.md.
set -euo pipefail
COLLECT_PROG=${0##*/}
here=$([[ "$0" == */* ]] && printf '%s' "${0%/*}" || printf .)
# shellcheck source=common.sh source-path=SCRIPTDIR
source "$here/common.sh"

usage() {
  cat <<USAGE
usage: $COLLECT_PROG [options] [-- EXTRA BABELSTREAM ARGS]

  --binary PATH     BabelStream executable (default: the first of cuda-stream, hip-stream,
                    babelstream in PATH)
  --outdir DIR      output folder (default ./fathom-calibration)
  --out NAME        CSV file name in OUTDIR (default hbm_babelstream.csv; keep "hbm" in it)
  --arraysize N     elements per array, BabelStream -s (default 268435456: 2 GiB of doubles)
  --numtimes N      runs per kernel, BabelStream -n (default 100)
  --device N        device index, BabelStream --device (default 0)
  --dry-run         print the command; run nothing
  -h, --help        this text
USAGE
}

binary=""
outdir="fathom-calibration"
out="hbm_babelstream.csv"
arraysize=268435456
numtimes=100
device=0
dry_run=0
extra=()
while (($#)); do
  case "$1" in
    --binary) need_value "$@"; binary="$2"; shift 2 ;;
    --outdir) need_value "$@"; outdir="$2"; shift 2 ;;
    --out) need_value "$@"; out="$2"; shift 2 ;;
    --arraysize) need_value "$@"; arraysize="$2"; shift 2 ;;
    --numtimes) need_value "$@"; numtimes="$2"; shift 2 ;;
    --device) need_value "$@"; device="$2"; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) usage_error "unknown option '$1'" ;;
  esac
done
for pair in "arraysize:$arraysize" "numtimes:$numtimes" "device:$device"; do
  [[ "${pair#*:}" =~ ^[0-9]+$ ]] || usage_error "--${pair%%:*}: expected a whole number, got '${pair#*:}'"
done
[[ "$out" == *.csv && "$out" != */* ]] || usage_error "--out: expected a file name ending in .csv, got '$out'"

if [[ -z "$binary" ]]; then
  for candidate in cuda-stream hip-stream babelstream; do
    if command -v "$candidate" >/dev/null 2>&1; then
      binary="$candidate"
      break
    fi
  done
fi
if ((!dry_run)); then
  need_cmd "${binary:-cuda-stream}" "BabelStream; build it (CUDA model) and pass --binary" || true
  report_missing
fi

cmd=("${binary:-cuda-stream}" --csv -s "$arraysize" -n "$numtimes" --device "$device" "${extra[@]}")
line=$(quote_cmd "${cmd[@]}")
csv="$outdir/$out"
raw="$outdir/provenance/${out%.csv}.stdout.txt"
if ((dry_run)); then
  printf '# -> %s (raw stdout: %s)\n%s\n' "$csv" "$raw" "$line"
  exit 0
fi

mkdir -p "$outdir/provenance"
note "running: $line"
"${cmd[@]}" >"$raw"
header_line=$(grep -n -m1 -E '^function,num_times,n_elements,sizeof,max_mi?bytes_per_sec,' "$raw" | cut -d: -f1 || true)
if [[ -z "$header_line" ]]; then
  die "BabelStream printed no CSV header (function,num_times,...); its output is in $raw"
fi
tail -n "+$header_line" "$raw" >"$csv"
{
  printf 'tool: BabelStream via calibrate/collect/babelstream.sh\n'
  printf 'date: %s\nhost: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(hostname)"
  printf 'command: %s\n' "$line"
  printf 'banner (lines before the CSV):\n'
  head -n "$((header_line - 1))" "$raw" | sed 's/^/  /'
} >"$outdir/provenance/$out.provenance.txt"
note "wrote $csv"
