#!/usr/bin/env bash
# Whole-process ("cold process") timing of the release binary: each run is a fresh process
# (index load, model load for search, query, output). Prints the median and the range.
# Usage: benches/cold_process.sh [RUNS]   (from the repository root, after `cargo build --release`)
# Uses hyperfine when installed; otherwise times the runs itself.
set -euo pipefail
RUNS=${1:-20}
BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release/recommend}
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
time_runs "recommend search (cold process, zh)" "$BIN" search "用视频生成模型来估计状态的价值" --format json
time_runs "recommend search (cold process, en)" "$BIN" search "reward model for web agents" --format json
