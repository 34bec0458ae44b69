#!/usr/bin/env bash
# `fathom calibrate` and `fathom validate --profile` as a user runs them on the published
# measurements (data/calibration-data): the report's summary lines, the profile's provenance
# (every file's sha256 as sha256sum prints it), held-out points and files, a profile applied by a
# scenario's `calibration:` key, and clear errors (exit 2, no
# half-written profile) for what is missing or wrong.
set -uo pipefail
build="$1"
source_dir="$2"
fathom="$build/fathom"
data="$source_dir/data/calibration-data"
source "$(dirname "$0")/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The Azure ND H100 v5 folder: every kind of measurement it holds is fitted.
out=$("$fathom" calibrate "$data/azure-nd-h100-v5" -o "$tmp/h100.yaml" --points "$tmp/h100.csv"); rc=$?
check "calibrate on the Azure H100 folder exits 0" test "$rc" -eq 0
check "it names the system it guessed" grep -q "catalog node dgx-h100" <<<"$out"
check "the last line says where the profile went" grep -qx "wrote $tmp/h100.yaml" <<<"$(tail -1 <<<"$out")"
line=$(grep -E '^collectives: points=14 ' <<<"$out")
check "the collectives summary line" test -n "$line"
median=$(sed -E 's/.*median_rel_error=([0-9.]+).*/\1/' <<<"$line")
worst=$(sed -E 's/.*max_rel_error=([0-9.]+).*/\1/' <<<"$line")
check "all-reduce: median under 3% from 1 MiB (issue 5's target)" awk -v m="$median" 'BEGIN { exit !(m < 0.03) }'
check "all-reduce: every size within 8% from 1 MiB" awk -v m="$worst" 'BEGIN { exit !(m < 0.08) }'
gemm=$(grep -E '^gemm fp8e4m3: points=9 ' <<<"$out")
check "GEMM: every shape within 8%" awk -v m="$(sed -E 's/.*max_rel_error=([0-9.]+).*/\1/' <<<"$gemm")" \
  'BEGIN { exit !(m < 0.08) }'
check "the profile is a profile" grep -qx "profile: 1" "$tmp/h100.yaml"
for f in "$data"/azure-nd-h100-v5/*.csv; do
  check "the profile names $(basename "$f") by its sha256" grep -q "$(sha256sum "$f" | cut -c1-64)" "$tmp/h100.yaml"
done
check "the points CSV has its header" grep -qx "file,kind,label,x,measured,predicted,unit,rel_error,held_out" \
  <(head -1 "$tmp/h100.csv")
check "and one row per point (24 sizes, 9 shapes, 5 kernels, 8 fio rows)" test "$(wc -l <"$tmp/h100.csv")" -eq 47

# Vidur's measured H100 operator profiles: the kernel model fitted on Llama-2-7B, the other two
# models held out, the fit written as the profile's gemm_tiles_bf16 and memory_kernels, and a
# training scenario with it gives the catalog's step (the catalog carries the same fit).
vidur="$data/vidur-operator-profiles/compute/h100"
out=$("$fathom" calibrate "$vidur/Llama-2-7b-hf.mlp.csv" "$vidur/Llama-2-70b-hf.mlp.csv" \
  "$vidur/CodeLlama-34b-Instruct-hf.mlp.csv" --holdout-files '*70b*' --holdout-files '*34b*' --node dgx-h100 \
  -o "$tmp/kernels.yaml" --points "$tmp/kernels.csv"); rc=$?
check "calibrate on the operator profiles exits 0" test "$rc" -eq 0
check "one profile fitted, two held out" grep -q "1 file(s) fitted, 2 held out" <<<"$out"
check "the BF16 GEMM fit's summary line" grep -qE '^kernels gemm bf16: points=4176 ' <<<"$out"
for model in Llama-2-70b-hf CodeLlama-34b-Instruct-hf; do
  line=$(grep "held out .*$model" <<<"$out")
  check "$model held out: its errors printed" test -n "$line"
  for class in GEMM memory-bound layer; do
    e=$(sed -E "s/.*$class median ([-+][0-9.]+)%.*/\1/" <<<"$line")
    check "$model: $class median within 5% ($e%)" awk -v e="$e" 'BEGIN { exit !(e <= 5 && e >= -5) }'
  done
done
check "the profile carries gemm_tiles_bf16" grep -q "^    gemm_tiles_bf16:" "$tmp/kernels.yaml"
for kernel in norm rotary activation residual; do
  check "the profile carries the $kernel kernel's cost" grep -qE "^      $kernel: \{launch: " "$tmp/kernels.yaml"
done
check "one point per operator of every row (3 profiles x 1,044 rows x 9 operators)" \
  test "$(wc -l <"$tmp/kernels.csv")" -eq $((3 * 1044 * 9 + 1))
"$fathom" calibrate "$vidur/Llama-2-7b-hf.mlp.csv" "$vidur/Llama-2-70b-hf.mlp.csv" --node dgx-h100 \
  -o "$tmp/two.yaml" >/dev/null 2>"$tmp/two.err"; rc=$?
check "two operator profiles to fit exit 2" test "$rc" -eq 2
check "and say to hold one out" grep -q "fit one and hold the others out" "$tmp/two.err"
check "no profile is written then" test ! -e "$tmp/two.yaml"
sed 's|^cluster:|calibration: kernels.yaml\ncluster:|' "$source_dir/scenarios/examples/pilot-16-nodes.yaml" \
  >"$tmp/pilot-kernels.yaml"
with=$("$fathom" simulate "$tmp/pilot-kernels.yaml" | grep -m1 '^step time' | awk '{print $3}')
without=$("$fathom" simulate "$source_dir/scenarios/examples/pilot-16-nodes.yaml" | grep -m1 '^step time' | awk '{print $3}')
check "the profile's kernels give the catalog's step (within 0.1%: $with s, $without s)" \
  awk -v a="$with" -v b="$without" 'BEGIN { d = a / b - 1; exit !(d < 0.001 && d > -0.001) }'

# The A100 VM's ring all-reduce: NCCL's protocols by size, fitted.
out=$("$fathom" calibrate "$data/azure-nd-a100-v4/nccl_all_reduce.csv" -o "$tmp/a100.yaml"); rc=$?
check "calibrate on the Azure A100 all-reduce exits 0" test "$rc" -eq 0
line=$(grep -E '^collectives: points=14 ' <<<"$out")
check "A100 all-reduce: median under 3% and every size within 8% from 1 MiB" awk \
  -v m="$(sed -E 's/.*median_rel_error=([0-9.]+).*/\1/' <<<"$line")" \
  -v w="$(sed -E 's/.*max_rel_error=([0-9.]+).*/\1/' <<<"$line")" 'BEGIN { exit !(m < 0.03 && w < 0.08) }'
check "the profile carries NCCL's protocol thresholds" grep -qE '^  ll128_max: [0-9]+B$' "$tmp/a100.yaml"
out=$("$fathom" validate --profile "$tmp/a100.yaml" "$data/azure-nd-a100-v4/nccl_all_reduce.csv" --nodes 1 \
  --gpus-per-node 8); rc=$?
check "validate names the protocol of every size" grep -qE '^ +1048576 .* ring LL$' <<<"$out"

# The profile in use: validate without a scenario, and a scenario with `calibration:`.
out=$("$fathom" validate --profile "$tmp/h100.yaml" "$data/azure-nd-h100-v5/nccl_all_reduce.csv" --nodes 1 \
  --gpus-per-node 8); rc=$?
check "validate --profile exits 0" test "$rc" -eq 0
check "its summary matches the fit's" grep -qE "^files=1 points=14 median_rel_error=0\.0[0-2]" <<<"$(tail -1 <<<"$out")"
cp "$source_dir/scenarios/examples/dgx-h100-node.yaml" "$tmp/node.yaml"
plain=$("$fathom" nccl-tests "$tmp/node.yaml" -b 1M -e 1M | grep -E '^ +1048576 ')
echo "calibration: h100.yaml" >>"$tmp/node.yaml"
calibrated=$("$fathom" nccl-tests "$tmp/node.yaml" -b 1M -e 1M | grep -E '^ +1048576 ')
check "a scenario's calibration: key changes the simulated 1 MiB all-reduce" test "$plain" != "$calibrated"

# Held out: a fraction of every file's points, and whole files.
out=$("$fathom" calibrate "$data/azure-nd-h100-v5" -o "$tmp/held.yaml" --holdout 0.25); rc=$?
check "--holdout 0.25 exits 0" test "$rc" -eq 0
check "and reports the held-out error" grep -qE '^held_out: points=[1-9][0-9]* ' <<<"$out"
out=$("$fathom" calibrate "$data/azure-nd-h100-v5" -o "$tmp/held-files.yaml" --holdout-files 'hbm*'); rc=$?
check "--holdout-files exits 0" test "$rc" -eq 0
check "the held-out file is predicted, not fitted" grep -q 'used: "held out"' "$tmp/held-files.yaml"

# Vidur's NCCL profile of an H100 node (its first 8-GPU sizes, 2 KiB to 1 MiB), fitted from the
# smallest size under NCCL's cost model: the profile says so and sets no threshold; validate
# reads the same file.
head -130 "$data/vidur-operator-profiles/network/h100_dgx/all_reduce.csv" >"$tmp/nccl-profile.csv"
out=$("$fathom" calibrate "$tmp/nccl-profile.csv" --node dgx-h100 --tuner nccl --min-bytes 0B -o "$tmp/small.yaml"); rc=$?
check "calibrate --tuner nccl on an NCCL profile exits 0" test "$rc" -eq 0
check "the fit covers its 129 sizes" grep -qE '^collectives: points=129 ' <<<"$out"
check "the profile says tuner: nccl" grep -qx "  tuner: nccl" "$tmp/small.yaml"
check "and sets no threshold" test "$(grep -cE '^  (ll_max|ll128_max|nvls_min|tree_max):' "$tmp/small.yaml")" -eq 0
out=$("$fathom" validate --profile "$tmp/small.yaml" "$tmp/nccl-profile.csv"); rc=$?
check "validate reads the NCCL profile" test "$rc" -eq 0
check "one sweep of 8 GPUs" grep -q "nccl-profile.csv \[8 GPUs, 1 node\]: all_reduce on 1 node(s) x 8 GPU(s)" <<<"$out"
err=$("$fathom" calibrate "$tmp/nccl-profile.csv" --node dgx-h100 --tuner argmin -o "$tmp/none.yaml" 2>&1); rc=$?
check "an unknown --tuner exits 2" test "$rc" -eq 2
err=$("$fathom" calibrate "$tmp/nccl-profile.csv" --node dgx-h100 --min-bytes lots -o "$tmp/none.yaml" 2>&1); rc=$?
check "a --min-bytes that is no size exits 2" test "$rc" -eq 2
check "and says what it expected" grep -q -- "--min-bytes: expected" <<<"$err"

# Errors: exit 2, a message that says what to do, and no profile written.
mkdir "$tmp/mystery"
cp "$data/azure-nd-h100-v5/gemm.csv" "$tmp/mystery/"
err=$("$fathom" calibrate "$tmp/mystery" -o "$tmp/none.yaml" 2>&1); rc=$?
check "an unknown system exits 2" test "$rc" -eq 2
check "and asks for --node" grep -q -- "--node" <<<"$err"
err=$("$fathom" calibrate "$data/azure-nd-h200-v5" -o "$tmp/none.yaml" 2>&1); rc=$?
check "two software versions in one fit exit 2" test "$rc" -eq 2
check "and say why" grep -q "one profile is one system under one software version" <<<"$err"
printf 'm,n,k,dtype,tflops\n1024,1024,1024,fp8e4m3,oops\n' >"$tmp/mystery/gemm.csv"
err=$("$fathom" calibrate "$tmp/mystery" --node dgx-h100 -o "$tmp/none.yaml" 2>&1); rc=$?
check "a malformed file exits 2" test "$rc" -eq 2
check "and names its file and line" grep -q "gemm.csv:2" <<<"$err"
check "no profile is written on error" test ! -e "$tmp/none.yaml"
sed 's/^profile: 1$/profile: 2/' "$tmp/h100.yaml" >"$tmp/future.yaml"
err=$("$fathom" validate --profile "$tmp/future.yaml" "$data/azure-nd-h100-v5/nccl_all_reduce.csv" 2>&1); rc=$?
check "a profile of another schema version exits 2" test "$rc" -eq 2
check "naming the file, line and key" grep -qE "future.yaml:[0-9]+:[0-9]+: profile" <<<"$err"

echo "calibrate CLI: $failures failed"
[ "$failures" -eq 0 ]
