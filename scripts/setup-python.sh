#!/usr/bin/env bash
# Creates or updates the project's Python environment at <repo>/.venv (idempotent; a no-op taking
# well under a second when the venv already holds exactly scripts/python-requirements.txt).
#  - needs python3 (>= 3.9) with the venv module; on Debian the module is the python3-venv package,
#    installed here through apt only when it is missing and apt is available;
#  - pip-installs scripts/python-requirements.txt (exact pins) and records the file's hash in
#    .venv/.requirements.sha256, so later runs skip pip until the requirements change.
# Override the interpreter with PYTHON=/path/to/python3.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$repo/.venv"
req="$repo/scripts/python-requirements.txt"
stamp="$venv/.requirements.sha256"
python="${PYTHON:-python3}"

command -v "$python" >/dev/null 2>&1 || { echo "setup-python: $python not found: install Python 3 first" >&2; exit 2; }

want="$(sha256sum "$req" | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "setup-python: ok ($venv)" >&2
  exit 0
fi

# `python3 -m venv` fails without ensurepip (Debian splits it into python3-venv).
if ! "$python" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    pyver="$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
    echo "setup-python: installing python${pyver}-venv" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "python${pyver}-venv" >/dev/null 2>&1 \
      || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
  else
    echo "setup-python: the Python venv module (ensurepip) is missing and apt-get is not available" >&2
    exit 2
  fi
fi

if [ ! -x "$venv/bin/python" ]; then
  echo "setup-python: creating $venv" >&2
  "$python" -m venv "$venv"
fi
echo "setup-python: installing $(grep -cv '^\s*\(#\|$\)' "$req") pinned packages" >&2
"$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$req"
echo "$want" > "$stamp"
echo "setup-python: ok ($venv)" >&2
