#!/usr/bin/env bash
# run.sh's loads through `serve --store URL` instead of `--index`: the store's pgvector answers
# to a query vector asked again are kept per loaded version too. Usage: run-store.sh URL BEFORE
# AFTER STOREBENCH (a store already pushed; PGPASSWORD set).
set -euo pipefail
URL="${1:?usage: run-store.sh URL BEFORE AFTER STOREBENCH}"; BEFORE="${2:?}"; AFTER="${3:?}"; BENCH="${4:?}"
tick=$(getconf CLK_TCK); port=18402
pg_cpu() { local t=0 s; for p in $(pgrep -f '^postgres: ' || true); do s=$(awk '{print $14+$15}' "/proc/$p/stat" 2>/dev/null || echo 0); t=$((t+s)); done; echo $t; }
echo "== $(date -u +%FT%TZ) $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
for name in before after; do
  bin=$BEFORE; [ "$name" = after ] && bin=$AFTER
  "$bin" serve --addr 127.0.0.1:$port --store "$URL" 2>/dev/null >/dev/null & pid=$!
  for _ in $(seq 1 600); do
    curl -sf http://127.0.0.1:$port/healthz | grep -q '"model":"ready"' && break; sleep 0.5
  done
  for kind in search repeat; do
    "$BENCH" load http://127.0.0.1:$port "$kind" 16 5 >/dev/null
    a0=$(awk '{print $14+$15}' /proc/$pid/stat); b0=$(pg_cpu)
    out=$("$BENCH" load http://127.0.0.1:$port "$kind" 16 20)
    a1=$(awk '{print $14+$15}' /proc/$pid/stat); b1=$(pg_cpu)
    n=$(echo "$out" | sed -E 's/.* ([0-9]+) requests.*/\1/')
    echo "$name --store: $out; cpu per request: server $(echo "scale=2; ($a1-$a0)*1000/$tick/$n" | bc) ms, postgres $(echo "scale=2; ($b1-$b0)*1000/$tick/$n" | bc) ms; load $(cut -d' ' -f1 /proc/loadavg)"
  done
  kill $pid; wait $pid 2>/dev/null || true
done
echo "== $(date -u +%FT%TZ) done; load $(cut -d' ' -f1-3 /proc/loadavg)"
