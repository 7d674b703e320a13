#!/usr/bin/env bash
# Installs the Debian packages lcab builds with, when missing. Idempotent; silent when nothing is missing.
# The CUDA toolkit (nvcc, NCCL, CUPTI, cuBLAS, cuDNN) is expected at /usr/local/cuda; without it lcab builds its
# host-only parts (model, calibration, reports, lcab-predict) and says so at configure time.
set -euo pipefail

packages=(cmake make g++ git pkg-config
          libeigen3-dev libboost-program-options-dev nlohmann-json3-dev libgtest-dev libopenmpi-dev
          libexpat1-dev zlib1g-dev  # the report tests check SVG with Expat; zlib reads gzip-compressed records
                                    # and decodes PNG in the report tests
          python3 python3-numpy)    # the peers script's host tests
# Headless Chromium renders the HTML report in one test (skipped when absent).
if [[ "${LCAB_SETUP_CHROMIUM:-1}" == 1 ]]; then packages+=(chromium); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then missing+=("$p"); fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "setup: installing ${missing[*]}" >&2
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
