#!/usr/bin/env bash
# One-time machine set-up for the test suite: system packages the tests drive.
#  - chromium + CJK fonts: the map test renders the HTML map headless and screenshots it;
#  - python3 + pip: the model is fetched from PyPI with `pip download` (the binary does this
#    itself on first use; this only makes sure pip exists);
#  - PostgreSQL 16 with pgvector for the store tests (`tests/store.rs`): the pinned PyPI wheel
#    pgserver==0.1.4 (its SHA-256 is checked) is unzipped, never pip-installed, into
#    ${RECOMMEND_PG_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/recommend/pgserver}; the tests start
#    their own server from its pgserver/pginstall/bin/ (or from $RECOMMEND_PG_BIN);
#  - openssl: the TLS test makes a test authority and a server certificate with it.
# Rust comes from rustup (already on the machine). Idempotent: installs only what is missing.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
[ -d /usr/share/fonts/opentype/noto ] || need+=(fonts-noto-cjk)
command -v python3 >/dev/null 2>&1 || need+=(python3)
python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)
command -v openssl >/dev/null 2>&1 || need+=(openssl)

if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# PostgreSQL + pgvector for the store tests. Idempotent: a complete install (marked by the
# wheel's hash) is left alone; a partial one is replaced; the final rename is atomic.
PG_WHEEL="pgserver-0.1.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
PG_SHA256="d595789b47624a3d963aa9aa6359da9be31beb7e61f1a45541953242068b8813"
PG_HOME="${RECOMMEND_PG_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/recommend/pgserver}"
if [ "$(uname -m)" = x86_64 ] && [ "$(cat "$PG_HOME/.sha256" 2>/dev/null)" != "$PG_SHA256" ]; then
  echo "setup: installing PostgreSQL 16 + pgvector (pgserver==0.1.4) into $PG_HOME" >&2
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/recommend-pgserver.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  python3 -m pip download --quiet --no-deps --only-binary :all: --python-version 3.11 \
    --platform manylinux2014_x86_64 --dest "$tmp" pgserver==0.1.4
  echo "$PG_SHA256  $tmp/$PG_WHEEL" | sha256sum --check --quiet
  python3 -m zipfile -e "$tmp/$PG_WHEEL" "$tmp/unpacked"
  chmod -R u+rwX,go+rX "$tmp/unpacked"
  chmod +x "$tmp"/unpacked/pgserver/pginstall/bin/*
  # Kept as the wheel lays it out: the binaries find libpq through their rpath
  # ($ORIGIN/../../../pgserver.libs). The Python files are not needed.
  mkdir -p "$tmp/home"
  mv "$tmp/unpacked/pgserver" "$tmp/unpacked/pgserver.libs" "$tmp/home/"
  echo "$PG_SHA256" > "$tmp/home/.sha256"
  mkdir -p "$(dirname "$PG_HOME")"
  rm -rf "$PG_HOME.old"
  [ -e "$PG_HOME" ] && mv "$PG_HOME" "$PG_HOME.old"
  mv "$tmp/home" "$PG_HOME"
  rm -rf "$PG_HOME.old"
fi
if [ "$(uname -m)" = x86_64 ]; then
  "$PG_HOME/pgserver/pginstall/bin/postgres" --version >/dev/null
  [ -f "$PG_HOME/pgserver/pginstall/share/postgresql/extension/vector.control" ]
fi
echo "setup: ok (chromium, fonts, python3, pip, PostgreSQL + pgvector present)" >&2
