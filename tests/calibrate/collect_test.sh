#!/usr/bin/env bash
# The collectors of calibrate/collect/: every script parses (bash -n, py_compile), --dry-run
# exits 0 and prints the commands with the flags fathom's parsers rely on, a missing tool is a
# clear non-zero exit, and (with stand-in nccl-tests and fio binaries) real runs write files in
# the expected places; given a build folder, `fathom validate` reads the nccl-tests log written.
# usage: collect_test.sh SOURCE_DIR [BUILD_DIR]
set -uo pipefail
src="${1:-$(cd "$(dirname "$0")/../.." && pwd)}"
build="${2:-}"
collect="$src/calibrate/collect"
py=/usr/bin/python3
failures=0
check() {
  local name="$1"; shift
  if "$@"; then echo "ok: $name"; else echo "FAILED: $name"; failures=$((failures + 1)); fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PYTHONPYCACHEPREFIX="$tmp/pycache"  # py_compile leaves nothing in the source tree

for f in common.sh nccl_sweep.sh babelstream.sh fio_tiers.sh collect_all.sh; do
  check "bash -n $f" bash -n "$collect/$f"
done
for f in gemm_sweep.py hbm_bandwidth.py provenance.py; do
  check "py_compile $f" "$py" -m py_compile "$collect/$f"
done
if command -v shellcheck >/dev/null 2>&1; then
  check "shellcheck clean" shellcheck -x "$collect"/*.sh "$0"
fi

# --- nccl_sweep.sh --dry-run -------------------------------------------------------------------
out=$(bash "$collect/nccl_sweep.sh" --dry-run --nodes 2 --hostfile hosts --gpus-per-node 8 --outdir o 2>&1); rc=$?
check "nccl_sweep --dry-run exits 0" test "$rc" -eq 0
check "every run uses -b 8 -e 8G -f 2" test "$(grep -c -- '_perf -b 8 -e 8G -f 2 -g ' <<<"$out")" -eq 24
check "six ops x 2 node counts x 2 algorithms" test "$(grep -c '^# -> ' <<<"$out")" -eq 24
check "single node: no MPI, -g 8" grep -q '^env NCCL_DEBUG=VERSION NCCL_ALGO=Ring .*/all_reduce_perf -b 8 -e 8G -f 2 -g 8$' <<<"$out"
check "two nodes: mpirun with the hostfile, one GPU per process" \
  grep -q '^mpirun -np 16 --hostfile hosts --map-by ppr:8:node .*-x NCCL_DEBUG=VERSION -x NCCL_ALGO=Ring .*/alltoall_perf -b 8 -e 8G -f 2 -g 1$' <<<"$out"
check "the default runs force no algorithm" test "$(grep -c 'NCCL_ALGO' <<<"$out")" -eq 12
check "file names <op>_<nodes>node_<algo>.log" grep -q '^# -> o/reduce_scatter_2node_Ring.log$' <<<"$out"
for op in all_reduce all_gather reduce_scatter alltoall sendrecv broadcast; do
  check "op $op is run" grep -q "/${op}_perf " <<<"$out"
done
out=$(bash "$collect/nccl_sweep.sh" --dry-run --gpus-per-node 4 --ops all_reduce --max-bytes 1G --proto LL128 2>&1)
check "--max-bytes and --proto" grep -q 'NCCL_PROTO=LL128 .*all_reduce_perf -b 8 -e 1G -f 2 -g 4$' <<<"$out"
check "--proto names the file" grep -q 'all_reduce_1node_Ring_LL128.log' <<<"$out"
out=$(bash "$collect/nccl_sweep.sh" --dry-run --gpus-per-node 8 --nodes 2 --mpi-flavor hydra --hostfile h --ops sendrecv 2>&1)
check "hydra launcher: -genv and -ppn" grep -q '^mpirun -np 16 -f h -ppn 8 -genv NCCL_DEBUG VERSION -genv NCCL_ALGO Ring ' <<<"$out"
bash "$collect/nccl_sweep.sh" --nodes 2 --dry-run >/dev/null 2>&1; rc=$?
check "--nodes 2 without --hostfile is a usage error" test "$rc" -eq 2
bash "$collect/nccl_sweep.sh" --ops all_reduce,allreduce --dry-run >/dev/null 2>&1; rc=$?
check "an unknown op is a usage error" test "$rc" -eq 2

# --- a missing tool: restricted PATH (basic utilities only) -----------------------------------
mkdir -p "$tmp/bin"
for t in bash env grep cut tail head sed date hostname mkdir mv rm cat dirname uname; do
  p=$(command -v "$t") && ln -s "$p" "$tmp/bin/$t"
done
err=$(PATH="$tmp/bin" bash "$collect/nccl_sweep.sh" --gpus-per-node 8 --ops all_reduce --outdir "$tmp/none" 2>&1); rc=$?
check "nccl_sweep without nccl-tests exits non-zero" test "$rc" -ne 0
check "and names the missing binary" grep -q 'missing prerequisite.*' <<<"$err"
check "and which one" grep -q 'all_reduce_perf (nccl-tests binary' <<<"$err"
check "and runs nothing" test ! -e "$tmp/none"
err=$(PATH="$tmp/bin" bash "$collect/nccl_sweep.sh" --gpus-per-node 8 --nodes 2 --hostfile "$tmp/nohosts" --ops all_reduce 2>&1); rc=$?
check "multi-node without mpirun exits non-zero" test "$rc" -ne 0
check "and says mpirun is missing" grep -q 'mpirun (MPI launcher' <<<"$err"
err=$(PATH="$tmp/bin" bash "$collect/fio_tiers.sh" --tier nvme="$tmp" 2>&1); rc=$?
check "fio_tiers without fio exits non-zero" test "$rc" -ne 0
check "and says fio is missing" grep -q -- '- fio (fio, the flexible I/O tester' <<<"$err"
err=$(PATH="$tmp/bin" bash "$collect/babelstream.sh" 2>&1); rc=$?
check "babelstream.sh without BabelStream exits non-zero" test "$rc" -ne 0
check "and says BabelStream is missing" grep -q 'BabelStream' <<<"$err"
err=$(PATH="$tmp/bin" bash "$collect/collect_all.sh" --outdir "$tmp/all" --python "$tmp/bin/python-none" --tier x="$tmp" 2>&1); rc=$?
check "collect_all without its tools exits non-zero" test "$rc" -ne 0
lists_all() { grep -q "python-none" <<<"$err" && grep -q -- "- fio " <<<"$err" && grep -q -- "- nvbandwidth " <<<"$err"; }
check "and lists python, fio and nvbandwidth together" lists_all
err=$("$py" -S "$collect/gemm_sweep.py" --out "$tmp/g/gemm.csv" 2>&1); rc=$?
check "gemm_sweep without torch exits non-zero" test "$rc" -ne 0
check "and says PyTorch is missing" grep -q 'missing prerequisite: PyTorch' <<<"$err"
err=$("$py" -S "$collect/hbm_bandwidth.py" --out "$tmp/g/hbm.csv" 2>&1); rc=$?
check "hbm_bandwidth without torch exits non-zero" test "$rc" -ne 0
check "and says PyTorch is missing" grep -q 'missing prerequisite: PyTorch' <<<"$err"
check "no output was written" test ! -e "$tmp/g"

# --- gemm_sweep.py / hbm_bandwidth.py --dry-run (torch is never imported) -----------------------
out=$("$py" -S "$collect/gemm_sweep.py" --dry-run --dtypes bf16,fp8e4m3 --hidden 4096 --ffn 14336 --tokens 8192); rc=$?
check "gemm_sweep --dry-run exits 0 without torch" test "$rc" -eq 0
for shape in 1024,1024,1024 16384,16384,16384 1024,2145,1024 6144,12288,12288 802816,192,768 8192,12288,4096 8192,4096,14336; do
  check "gemm shape $shape listed" grep -q "^$shape," <<<"$out"
done
check "gemm dtypes" grep -q 'dtypes bf16,fp8e4m3' <<<"$out"
"$py" -S "$collect/gemm_sweep.py" --dry-run --dtypes fp7 >/dev/null 2>&1; rc=$?
check "an unknown dtype is a usage error" test "$rc" -eq 2
out=$("$py" -S "$collect/hbm_bandwidth.py" --dry-run --out "$tmp/x/hbm.csv"); rc=$?
check "hbm_bandwidth --dry-run exits 0" test "$rc" -eq 0
check "five BabelStream kernels" test "$(grep -cE '^(Copy|Mul|Add|Triad|Dot): ' <<<"$out")" -eq 5
check "the provenance goes under provenance/" grep -q "$tmp/x/provenance/hbm.csv.provenance.txt" <<<"$out"
out=$(bash "$collect/babelstream.sh" --dry-run --binary /opt/cuda-stream 2>&1); rc=$?
check "babelstream --dry-run exits 0" test "$rc" -eq 0
check "babelstream runs with --csv" grep -q '^/opt/cuda-stream --csv ' <<<"$out"

# --- fio_tiers.sh --dry-run -------------------------------------------------------------------
out=$(bash "$collect/fio_tiers.sh" --dry-run --tier nvme=/local --tier lustre=/lustre/x --outdir o 2>&1); rc=$?
check "fio_tiers --dry-run exits 0" test "$rc" -eq 0
check "2 tiers x 4 rw x 3 bs x 2 qd" test "$(grep -c '^fio ' <<<"$out")" -eq 48
check "every run writes JSON" test "$(grep -c -- '--output-format=json --output=o/fio_' <<<"$out")" -eq 48
check "direct, numjobs 4" test "$(grep -c -- '--numjobs=4 .*--direct=1' <<<"$out")" -eq 48
check "file names fio_<tier>_<rw>_<bs>_qd<qd>.json" grep -q '^# -> o/fio_lustre_randwrite_1M_qd32.json$' <<<"$out"
check "4k at queue depth 1" grep -q -- '--directory=/local --rw=randread --bs=4k --iodepth=1 ' <<<"$out"
bash "$collect/fio_tiers.sh" --dry-run >/dev/null 2>&1; rc=$?
check "no --tier is a usage error" test "$rc" -eq 2
bash "$collect/fio_tiers.sh" --dry-run --tier 'a b=/x' >/dev/null 2>&1; rc=$?
check "a bad tier name is a usage error" test "$rc" -eq 2

# --- collect_all.sh --dry-run -----------------------------------------------------------------
out=$(bash "$collect/collect_all.sh" --dry-run --outdir o --gpus-per-node 8 --tier nvme=/local --python "$py" 2>&1); rc=$?
check "collect_all --dry-run exits 0" test "$rc" -eq 0
check "it runs the nccl sweep" grep -q 'all_reduce_perf -b 8 -e 8G -f 2 -g 8' <<<"$out"
check "the GEMM sweep" grep -q 'gemm_sweep.py --out o/gemm.csv' <<<"$out"
check "the HBM measurement" grep -q 'hbm_bandwidth.py --out o/hbm.csv' <<<"$out"
check "fio" grep -q -- '--output-format=json --output=o/fio_nvme_' <<<"$out"
check "nvbandwidth" grep -q '^# -> o/nvbandwidth.txt' <<<"$out"
out=$(bash "$collect/collect_all.sh" --dry-run --outdir o --gpus-per-node 8 --babelstream /opt/cuda-stream --skip nccl,gemm,nvbandwidth 2>&1)
check "collect_all --babelstream uses babelstream.sh" grep -q '^/opt/cuda-stream --csv' <<<"$out"
no_nccl() { ! grep -q "_perf" <<<"$out"; }
check "--skip leaves steps out" no_nccl

# --- real runs with stand-in tools ------------------------------------------------------------
fake="$tmp/fake"
mkdir -p "$fake"
cat >"$fake/all_reduce_perf" <<'STUB'
#!/usr/bin/env bash
# Stands in for nccl-tests: prints a short run in its format.
echo "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
echo "#"
echo "# Using devices"
for r in 0 1 2 3 4 5 6 7; do
  echo "#  Rank  $r Group  0 Pid   4242 on   testnode device  $r [0000:1$r:00] NVIDIA H100 80GB HBM3"
done
echo "testnode:4242:4242 [0] NCCL INFO NCCL version 2.21.5+cuda12.4"
echo "#"
echo "#                                                              out-of-place                       in-place"
echo "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
echo "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)"
echo "     1048576        262144     float     sum      -1    40.10   26.15   45.76      0    39.80   26.35   46.11      0"
echo "  1073741824     268435456     float     sum      -1   2900.0  370.26  647.95      0   2895.0  370.90  649.07      0"
echo "  8589934592    2147483648     float     sum      -1  23000.0  373.47  653.58      0  22990.0  373.64  653.87      0"
echo "# Out of bounds values : 0 OK"
echo "# Avg bus bandwidth    : 449.39"
STUB
chmod +x "$fake/all_reduce_perf"
out=$(bash "$collect/nccl_sweep.sh" --nccl-tests-dir "$fake" --gpus-per-node 8 --ops all_reduce --outdir "$tmp/run" 2>&1); rc=$?
check "nccl_sweep with a stand-in binary exits 0" test "$rc" -eq 0 || echo "$out"
log="$tmp/run/all_reduce_1node_Ring.log"
check "it writes the Ring log" test -s "$log"
check "and the default log" test -s "$tmp/run/all_reduce_1node_default.log"
check "the log starts with the command" grep -q "^env NCCL_DEBUG=VERSION NCCL_ALGO=Ring .*all_reduce_perf -b 8 -e 8G -f 2 -g 8$" <(head -n 1 "$log")
check "then the tool's output, verbatim" cmp -s <(tail -n +2 "$log") <("$fake/all_reduce_perf")
check "the commands are kept in provenance/" test -s "$tmp/run/provenance/nccl/commands.txt"
check "nothing else is at the top of the folder" test "$(find "$tmp/run" -maxdepth 1 -type f | wc -l)" -eq 2
if [[ -n "$build" && -x "$build/fathom" ]]; then
  out=$("$build/fathom" validate --scenario "$src/scenarios/examples/dgx-h100-node.yaml" "$log" 2>&1); rc=$?
  check "fathom validate reads the log written (exit 0)" test "$rc" -eq 0 || echo "$out"
  check "with its 1 node x 8 GPUs and NCCL_ALGO=Ring" grep -q "on 1 node(s) x 8 GPU(s), algo Ring" <<<"$out"
fi

printf '#!/usr/bin/env bash\nexit 3\n' >"$fake/broken_perf"
ln -s broken_perf "$fake/broadcast_perf"
chmod +x "$fake/broken_perf"
bash "$collect/nccl_sweep.sh" --nccl-tests-dir "$fake" --gpus-per-node 8 --ops broadcast --algos Ring --outdir "$tmp/bad" >/dev/null 2>&1; rc=$?
check "a failing run exits non-zero" test "$rc" -ne 0
check "and its partial log is moved out of the folder" test ! -e "$tmp/bad/broadcast_1node_Ring.log"
check "into provenance/nccl/failed/" test -e "$tmp/bad/provenance/nccl/failed/broadcast_1node_Ring.log"

cat >"$fake/fio" <<'STUB'
#!/usr/bin/env bash
# Stands in for fio: writes a one-job JSON to --output.
out=""
for a in "$@"; do case "$a" in --output=*) out="${a#--output=}" ;; --name=*) name="${a#--name=}" ;; esac; done
printf '{\n  "fio version" : "fio-3.35",\n  "jobs" : [ { "jobname" : "%s", "error" : 0, "read" : { "io_bytes" : 1, "bw_bytes" : 1000 } } ]\n}\n' "$name" >"$out"
STUB
chmod +x "$fake/fio"
mkdir -p "$tmp/tier"
bash "$collect/fio_tiers.sh" --fio "$fake/fio" --tier scratch="$tmp/tier" --rw read --bs 1M --iodepth 1,32 --outdir "$tmp/fio" >/dev/null 2>&1; rc=$?
check "fio_tiers with a stand-in fio exits 0" test "$rc" -eq 0
check "it writes one JSON per run" test -s "$tmp/fio/fio_scratch_read_1M_qd1.json" -a -s "$tmp/fio/fio_scratch_read_1M_qd32.json"
check "valid JSON" "$py" -m json.tool "$tmp/fio/fio_scratch_read_1M_qd32.json" >/dev/null

echo "calibrate collectors: $failures failed"
[ "$failures" -eq 0 ]
