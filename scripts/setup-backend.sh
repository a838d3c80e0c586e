#!/usr/bin/env bash
# scripts/setup-backend.sh BACKEND: installs only what backend BACKEND needs, for a CI job that
# tests one backend (scripts/matrix-job). The Python packages come from the pinned
# scripts/python-requirements.txt (the versions are kept in that one place) into <repo>/.venv;
# scripts/setup.sh installs everything instead.
#
#   reference, fast            nothing beyond Rust (and m4 for GMP/MPFR: scripts/setup.sh's apt part)
#   xla, stablehlo-interpreter jax, jaxlib and their dependencies
#   iree, iree-f64             iree-base-compiler, iree-base-runtime and their dependencies
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: scripts/setup-backend.sh BACKEND" >&2; exit 2; }
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
req="$repo/scripts/python-requirements.txt"
case "$1" in
  reference|fast) packages=() ;;
  xla|stablehlo-interpreter) packages=(numpy ml_dtypes jax jaxlib opt_einsum scipy) ;;
  iree|iree-f64) packages=(numpy ml_dtypes iree-base-compiler iree-base-runtime sympy mpmath) ;;
  *) echo "setup-backend: unknown backend '$1' (reference, fast, xla, stablehlo-interpreter, iree, iree-f64)" >&2; exit 2 ;;
esac
if ! command -v m4 >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq m4 >/dev/null
fi
[ ${#packages[@]} -eq 0 ] && { echo "setup-backend: $1 needs no Python packages" >&2; exit 0; }
pins=()
for p in "${packages[@]}"; do
  pin=$(grep -E "^$p==" "$req") || { echo "setup-backend: $p is not pinned in $req" >&2; exit 2; }
  pins+=("$pin")
done
python="${PYTHON:-python3}"
[ -x "$repo/.venv/bin/python" ] || "$python" -m venv "$repo/.venv"
"$repo/.venv/bin/python" -m pip install --disable-pip-version-check -q "${pins[@]}"
echo "setup-backend: $1: installed ${pins[*]}" >&2
