#!/usr/bin/env bash
# Sets up a fresh Debian machine for building and testing conformance (idempotent).
#  - m4: gmp-mpfr-sys needs it to build GMP and MPFR (for `rug`, the exact reference's MPFR/MPC).
#    The built libraries are cached outside the clone, in ${GMP_MPFR_SYS_CACHE:-~/.cache/gmp-mpfr-sys},
#    so only the first build on a machine pays the ~3 minutes.
#  - chromium: harness/tests/report_chromium.rs renders the HTML report in headless Chromium and
#    checks the resulting DOM (that test fails, on purpose, when chromium is missing).
set -euo pipefail

need=()
command -v m4 >/dev/null 2>&1 || need+=(m4)
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v make >/dev/null 2>&1 || need+=(make)
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v cargo >/dev/null 2>&1 || { echo "setup: cargo not found: install Rust (rustup) first" >&2; exit 2; }
bash "$(dirname "${BASH_SOURCE[0]}")/setup-python.sh"  # .venv: the Khronos NNEF parser (oracle of nnef/tests), jax/jaxlib (the xla backend)
echo "setup: ok" >&2
