#!/usr/bin/env bash
# Warm `like` and hybrid `search` latency under 16 clients through `serve --index` and
# `serve --store`, two recommend binaries (before, after) in one run, each server measured in
# turn, with the server's and PostgreSQL's CPU per request. Output: stdout.
# Usage: run.sh WORKDIR BEFORE AFTER, where WORKDIR holds a.bin (benches/store.rs build + derive),
# a PostgreSQL with a.bin pushed (benches/store.rs push) listening on $PORT (default 55993).
set -euo pipefail
W="${1:?usage: run.sh WORKDIR BEFORE AFTER}"; BEFORE="${2:?}"; AFTER="${3:?}"
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
BENCH="${STORE_BENCH:-$(ls -t "$ROOT"/target/release/deps/store-* | grep -v '\.d$' | head -1)}"
PORT="${PORT:-55993}"; SECS="${SECS:-20}"; CLIENTS="${CLIENTS:-16}"
export PGPASSWORD="${PGPASSWORD:-bench}"
URL="postgres://postgres@127.0.0.1:$PORT/postgres"
tick=$(getconf CLK_TCK)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
start() { # port binary args...
  local port=$1 bin=$2; shift 2
  "$bin" serve --addr 127.0.0.1:"$port" "$@" 2>>"$W/serve-$port.log" >/dev/null &
  pids+=($!); eval "pid_$port=$!"
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/healthz" | grep -q '"model":"ready"' && return 0; sleep 0.5
  done
  echo "serve on $port did not get ready"; return 1
}
cpu_of() { awk '{print $14+$15}' "/proc/$1/stat"; }
pg_cpu() { local t=0 s; for p in $(pgrep -f '^postgres: ' || true); do s=$(awk '{print $14+$15}' "/proc/$p/stat" 2>/dev/null || echo 0); t=$((t+s)); done; echo $t; }
echo "== $(date -u +%FT%TZ) $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
start 18101 "$BEFORE" --index "$W/a.bin"
start 18102 "$AFTER" --index "$W/a.bin"
start 18201 "$BEFORE" --store "$URL"
start 18202 "$AFTER" --store "$URL"
declare -A name=([18101]="before --index" [18102]="after --index" [18201]="before --store" [18202]="after --store")
for s in 5 777 31337 4242 70001; do
  sums=$(for p in 18101 18102 18201 18202; do curl -s "http://127.0.0.1:$p/api/like?title=syn-$s&k=10" | md5sum; done | sort -u | wc -l)
  echo "like syn-$s: $sums distinct answer(s) from the four servers"
done
for kind in like search; do
  for port in 18101 18102 18201 18202; do
    "$BENCH" load "http://127.0.0.1:$port" "$kind" "$CLIENTS" 5 >/dev/null   # warm-up
    pid=$(eval echo "\$pid_$port"); a0=$(cpu_of "$pid"); b0=$(pg_cpu)
    out=$("$BENCH" load "http://127.0.0.1:$port" "$kind" "$CLIENTS" "$SECS")
    a1=$(cpu_of "$pid"); b1=$(pg_cpu)
    n=$(echo "$out" | sed -E 's/.* ([0-9]+) requests.*/\1/')
    echo "${name[$port]}: $out"
    echo "    cpu per request: server $(echo "scale=2; ($a1-$a0)*1000/$tick/$n" | bc) ms, postgres $(echo "scale=2; ($b1-$b0)*1000/$tick/$n" | bc) ms; load $(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
echo "== $(date -u +%FT%TZ) done; load $(cut -d' ' -f1-3 /proc/loadavg)"
