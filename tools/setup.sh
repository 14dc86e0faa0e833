#!/usr/bin/env bash
# Installs what the project needs and is missing: Debian packages (apt-get) and the pinned Python
# packages from pyproject.toml into ./.venv. Idempotent; fast when everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."

# tool -> Debian package
declare -A TOOLS=(
  [perl]=perl
  [riscv64-unknown-elf-gcc]=gcc-riscv64-unknown-elf
  [make]=make
  [gcc]=gcc
  [g++]=g++
  [openssl]=openssl   # tests/sim/test_signatures.py checks the device's signatures with it
  [clang]=clang       # the console's fuzz target (tests/firmware/console_fuzz.py): clang 14, libFuzzer
)
# header -> Debian package (the Verilator harness links against these)
declare -A HEADERS=(
  [/usr/include/event2/event.h]=libevent-dev
  [/usr/include/json-c/json.h]=libjson-c-dev
  [/usr/include/zlib.h]=zlib1g-dev
)
# file pattern -> Debian package (the runtimes clang links the fuzz target with)
declare -A FILES=(
  ['/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a']=libclang-rt-14-dev
)

missing=()
for tool in "${!TOOLS[@]}"; do command -v "$tool" >/dev/null 2>&1 || missing+=("${TOOLS[$tool]}"); done
for header in "${!HEADERS[@]}"; do [ -e "$header" ] || missing+=("${HEADERS[$header]}"); done
for pattern in "${!FILES[@]}"; do compgen -G "$pattern" >/dev/null || missing+=("${FILES[$pattern]}"); done
python3 -c "import venv, ensurepip" 2>/dev/null || missing+=(python3-venv)

if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: missing ${missing[*]} and no apt-get here: install those packages (Debian names) by hand." >&2
    exit 1
  fi
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "error: missing ${missing[*]}: run as root or install sudo." >&2; exit 1; }
    SUDO=sudo
  fi
  echo "[setup] installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

command -v python3 >/dev/null 2>&1 || { echo "error: python3 not found: apt-get install python3 python3-venv" >&2; exit 1; }
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "error: Python >= 3.11 needed (found $(python3 --version))" >&2; exit 1; }

# Python packages, pinned in pyproject.toml; reinstalled only when that file changes.
stamp=.venv/.pyproject.installed
if [ ! -x .venv/bin/python ] || [ ! -f "$stamp" ] || ! cmp -s pyproject.toml "$stamp"; then
  echo "[setup] installing Python packages into .venv"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/python - > .venv/requirements.txt <<'PY'
import tomllib
print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]))
PY
  .venv/bin/pip install -q --disable-pip-version-check -r .venv/requirements.txt
  cp pyproject.toml "$stamp"
fi

# The peer libraries of the benchmark (mbedTLS, BearSSL): Debian source packages at pinned versions,
# fetched once into build/peers/ (soc/peer_libs.py). A failed fetch prints one error line naming the
# package and set-up carries on: the benchmark then reports those rows missing.
.venv/bin/python -m soc.peer_libs >/dev/null || true
