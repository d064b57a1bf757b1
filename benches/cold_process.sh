#!/usr/bin/env bash
# Whole-process ("cold process") timing of the release binary: each run is a fresh process
# (index load, model load for search, query, output). Prints the median and the range.
# Usage: benches/cold_process.sh [RUNS]   (from the repository root, after `cargo build --release`)
# SCALE=N (default 100000) also times `--like` on a synthetic N-paper index written by
# `cargo run --release --example synthetic_index` (SCALE=0 skips it).
# Uses hyperfine when installed; otherwise times the runs itself.
set -euo pipefail
RUNS=${1:-20}
TARGET=${CARGO_TARGET_DIR:-target}
BIN=${BIN:-$TARGET/release/recommend}
SCALE=${SCALE:-100000}
time_runs() { # label, command...
  local label=$1; shift
  "$@" >/dev/null # warm the page cache
  if command -v hyperfine >/dev/null; then
    hyperfine -N --runs "$RUNS" --export-json /dev/stdout "$(printf '%q ' "$@")" 2>/dev/null |
      python3 -c "import json,sys; r=json.load(sys.stdin)['results'][0]; print('$label: median %.1f ms (min %.1f, max %.1f, %d runs)' % (r['median']*1e3, r['min']*1e3, r['max']*1e3, len(r['times'])))"
    return
  fi
  local ts=()
  for _ in $(seq "$RUNS"); do
    local s=$(date +%s%N); "$@" >/dev/null; local e=$(date +%s%N)
    ts+=($(( (e - s) / 1000 )))
  done
  printf '%s\n' "${ts[@]}" | sort -n | python3 -c "import sys; t=[int(x)/1e3 for x in sys.stdin]; n=len(t); m=(t[(n-1)//2]+t[n//2])/2; print('$label: median %.1f ms (min %.1f, max %.1f, %d runs)' % (m, t[0], t[-1], n))"
}
time_runs "recommend --like GRPO (cold process)" "$BIN" --like GRPO --format json
if [ "$SCALE" -gt 0 ]; then
  SYN="$TARGET/synthetic-$SCALE"
  if [ ! -f "$SYN/index.bin" ]; then
    cargo run --release --quiet --example synthetic_index -- "$SCALE" "$SYN"
  fi
  time_runs "recommend --like on a $SCALE-paper index (cold process)" \
    "$BIN" --index "$SYN/index.bin" --like syn-500 --format json
fi
time_runs "recommend search (cold process, zh)" "$BIN" search "用视频生成模型来估计状态的价值" --format json
time_runs "recommend search (cold process, en)" "$BIN" search "reward model for web agents" --format json
