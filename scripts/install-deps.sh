#!/usr/bin/env bash
# Installs the Debian 12 packages fathom builds and tests with, and only those that are missing.
# Idempotent and non-interactive: safe to run on every build, and a no-op when all is present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libboost-graph-dev libeigen3-dev libyaml-cpp-dev libtbb-dev libcli11-dev doctest-dev libbenchmark-dev
  # sweeps across processes and machines: mpirun -n N fathom plan (docs/plan.md)
  libopenmpi-dev openmpi-bin
  # compressed traces as they ship (`.swf.gz`, `.tar.gz`): sim/input/text_file.cpp
  zlib1g-dev
  # notebooks/ and their test (tests/notebooks/run_notebook.sh): Debian's Jupyter, headless
  jupyter-nbconvert python3-nbconvert python3-nbclient python3-ipykernel jupyter-client
  python3-matplotlib python3-pandas python3-yaml
  # the network model's independent reference in tests and benchmarks (tests/models/network/replay_simgrid.cpp)
  libsimgrid-dev
  # the go-live report's browser test (tests/report/golive_chromium_test.sh): headless Chromium
  chromium
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
