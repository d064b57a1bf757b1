#!/usr/bin/env bash
# Hybrid search through `serve --index`, 16 clients: distinct queries (`search`: "agents for
# planning N", N random up to 100k) and 64 queries asked again and again (`repeat`), a binary
# without kept query vectors (BEFORE) and one with them (AFTER), each server loaded in turn,
# two rounds. CPU per request from /proc. Output: stdout.
# Usage: run.sh INDEX BEFORE AFTER STOREBENCH (benches/store.rs, with its `repeat` kind).
set -euo pipefail
INDEX="${1:?usage: run.sh INDEX BEFORE AFTER STOREBENCH}"; BEFORE="${2:?}"; AFTER="${3:?}"; BENCH="${4:?}"
tick=$(getconf CLK_TCK); port=18401
echo "== $(date -u +%FT%TZ) $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in 1 2; do
  for name in before after; do
    bin=$BEFORE; [ "$name" = after ] && bin=$AFTER
    "$bin" serve --addr 127.0.0.1:$port --index "$INDEX" 2>/dev/null >/dev/null & pid=$!
    for _ in $(seq 1 600); do
      curl -sf http://127.0.0.1:$port/healthz | grep -q '"model":"ready"' && break; sleep 0.5
    done
    for kind in search repeat; do
      "$BENCH" load http://127.0.0.1:$port "$kind" 16 5 >/dev/null
      a0=$(awk '{print $14+$15}' /proc/$pid/stat)
      out=$("$BENCH" load http://127.0.0.1:$port "$kind" 16 20)
      a1=$(awk '{print $14+$15}' /proc/$pid/stat)
      n=$(echo "$out" | sed -E 's/.* ([0-9]+) requests.*/\1/')
      echo "round $round $name: $out; cpu per request $(echo "scale=2; ($a1-$a0)*1000/$tick/$n" | bc) ms; load $(cut -d' ' -f1 /proc/loadavg)"
    done
    kill $pid; wait $pid 2>/dev/null || true
  done
done
echo "== $(date -u +%FT%TZ) done; load $(cut -d' ' -f1-3 /proc/loadavg)"
