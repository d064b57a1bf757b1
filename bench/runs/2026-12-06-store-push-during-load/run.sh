#!/usr/bin/env bash
# A new version published while two `serve --store` processes answer 16 clients, and both taking
# it without a restart. Runs on the database bench/runs/2026-12-03/store/run.sh leaves in WORKDIR
# (version 2: b.bin's 110k papers): pushing a.bin (100k) removes 10k papers and publishes
# version 3; PUSH=b.bin VERSION=4 then adds them back as version 4. The clients ask for papers
# of the version they started on, so while a removal is taken the removed ones answer 404.
# Output: stdout. Usage: run.sh WORKDIR BIN STOREBENCH.
set -euo pipefail
W="${1:?usage: run.sh WORKDIR BIN STOREBENCH}"; BIN="${2:?}"; BENCH="${3:?}"
PG="${RECOMMEND_PG_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/recommend/pgserver/pgserver/pginstall/bin}"
PORT=55991
as_user() { if [ "$(id -u)" -eq 0 ]; then unshare --map-user=1000 --map-group=1000 -- "$@"; else "$@"; fi; }
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$W/pg/data/postmaster.pid" ] && kill -INT "$(head -1 "$W/pg/data/postmaster.pid")" 2>/dev/null || true
}
trap cleanup EXIT
echo "== $(date -u +%FT%TZ) $(nproc) cores; load $(cat /proc/loadavg)"
# A server of a run just before may still be shutting down.
for _ in $(seq 1 60); do [ -f "$W/pg/data/postmaster.pid" ] || break; sleep 1; done
as_user "$PG/postgres" -D "$W/pg/data" -p $PORT -k "$W/pg/sock" -c listen_addresses=127.0.0.1 \
  -c shared_buffers=2GB -c maintenance_work_mem=1GB -c max_connections=100 >>"$W/pg/log" 2>&1 &
sleep 3
export PGPASSWORD=bench
URL="postgres://postgres@127.0.0.1:$PORT/postgres"
for port in 18102 18103; do
  "$BIN" serve --addr 127.0.0.1:$port --store "$URL" 2>>"$W/serve-$port.log" >/dev/null &
  pids+=($!)
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/healthz" | grep -q '"model":"ready"' && break; sleep 0.5
  done
  echo "before: $(curl -s http://127.0.0.1:$port/healthz)"
done
"$BENCH" load http://127.0.0.1:18102 like 8 "${DURING:-90}" > "$W/during3-a.txt" &
la=$!
"$BENCH" load http://127.0.0.1:18103 like 8 "${DURING:-90}" > "$W/during3-b.txt" &
lb=$!
sleep 5
"$BENCH" push "$URL" "$W/${PUSH:-a.bin}"
pushed=$(date +%s)
for port in 18102 18103; do
  until curl -s "http://127.0.0.1:$port/healthz" | grep -q "\"version\":${VERSION:-3}"; do
    sleep 0.5
    [ $(( $(date +%s) - pushed )) -gt 120 ] && { echo "serve on $port still on the old version after 120 s"; break; }
  done
  echo "serve on $port answers version ${VERSION:-3}, $(( $(date +%s) - pushed )) s after the push ended: $(curl -s http://127.0.0.1:$port/healthz)"
done
wait $la $lb
cat "$W/during3-a.txt" "$W/during3-b.txt"
echo "== $(date -u +%FT%TZ) done; load $(cat /proc/loadavg)"
