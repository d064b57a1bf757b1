#!/usr/bin/env bash
# `like` through `serve --store` with each paper's nearest stored at push, against the binary
# before them (which searches pgvector's HNSW index per `like`) and against `serve --index`,
# on one PostgreSQL holding 100k synthetic papers. Output: stdout.
# Usage: run.sh WORKDIR BEFORE AFTER, where WORKDIR holds a.bin (benches/store.rs build).
set -euo pipefail
W="${1:?usage: run.sh WORKDIR BEFORE AFTER}"; BEFORE="${2:?}"; AFTER="${3:?}"
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
PG="${RECOMMEND_PG_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/recommend/pgserver/pgserver/pginstall/bin}"
export PORT="${PORT:-55993}"
as_user() { if [ "$(id -u)" -eq 0 ]; then unshare --map-user=1000 --map-group=1000 -- "$@"; else "$@"; fi; }
cleanup() {
  [ -f "$W/pg/data/postmaster.pid" ] && kill -INT "$(head -1 "$W/pg/data/postmaster.pid")" 2>/dev/null || true
}
trap cleanup EXIT
echo "== $(date -u +%FT%TZ) $(nproc) cores, $(free -g | awk '/Mem/{print $2}') GiB; load $(cat /proc/loadavg)"
rm -rf "$W/pg" && mkdir -p "$W/pg/sock" && printf bench > "$W/pg/pw"
as_user "$PG/initdb" -D "$W/pg/data" -U postgres --auth-host=scram-sha-256 --auth-local=trust \
  --pwfile="$W/pg/pw" --no-sync --no-instructions -E UTF8 >/dev/null
as_user "$PG/postgres" -D "$W/pg/data" -p "$PORT" -k "$W/pg/sock" -c listen_addresses=127.0.0.1 \
  -c shared_buffers=2GB -c maintenance_work_mem=1GB -c max_connections=100 >"$W/pg/log" 2>&1 &
sleep 3
export PGPASSWORD=bench
URL="postgres://postgres@127.0.0.1:$PORT/postgres"
# The push stores the lists; the binary before them reads the same store through pgvector.
/usr/bin/time -f "push: %e s wall, %U s user, %M KiB peak" "$AFTER" --index "$W/a.bin" push --to "$URL"
echo "load $(cat /proc/loadavg)"
"$ROOT/bench/runs/2026-12-06-store-latency/run.sh" "$W" "$BEFORE" "$AFTER"
