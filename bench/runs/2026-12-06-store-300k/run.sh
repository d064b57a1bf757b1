#!/usr/bin/env bash
# The store's second size step (benches/store.rs): 300k synthetic papers pushed into an empty
# PostgreSQL 16 + pgvector (the pgserver wheel, scripts/setup.sh), pgvector recall@10 against the
# exact scan, the sizes, and warm `like` through serve --store and serve --index (1 and 16
# clients). With the 100k step (bench/runs/2026-12-03/store/) it is what docs/store.md
# extrapolates from. Output: stdout. Usage: run.sh WORKDIR BIN STOREBENCH, where WORKDIR holds
# a.bin from `storebench build WORKDIR 300000 300000`. REUSE=1 keeps the database of a run
# before (a second binary's push then publishes without rewriting the papers).
set -euo pipefail
W="${1:?usage: run.sh WORKDIR BIN STOREBENCH}"; BIN="${2:?}"; BENCH="${3:?}"
PG="${RECOMMEND_PG_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/recommend/pgserver/pgserver/pginstall/bin}"
PORT="${PORT:-55994}"; N="${N:-300000}"; SECS="${SECS:-20}"
as_user() { if [ "$(id -u)" -eq 0 ]; then unshare --map-user=1000 --map-group=1000 -- "$@"; else "$@"; fi; }
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$W/pg/data/postmaster.pid" ] && kill -INT "$(head -1 "$W/pg/data/postmaster.pid")" 2>/dev/null || true
}
trap cleanup EXIT
echo "== $(date -u +%FT%TZ) $(nproc) cores, $(free -g | awk '/Mem/{print $2}') GiB; load $(cat /proc/loadavg)"
if [ "${REUSE:-0}" = 1 ] && [ -d "$W/pg/data" ]; then
  echo "reusing the database in $W/pg (the push below writes only what changed)"
else
  rm -rf "$W/pg" && mkdir -p "$W/pg/sock" && printf bench > "$W/pg/pw"
  as_user "$PG/initdb" -D "$W/pg/data" -U postgres --auth-host=scram-sha-256 --auth-local=trust \
    --pwfile="$W/pg/pw" --no-sync --no-instructions -E UTF8 >/dev/null
fi
as_user "$PG/postgres" -D "$W/pg/data" -p "$PORT" -k "$W/pg/sock" -c listen_addresses=127.0.0.1 \
  -c shared_buffers=2GB -c maintenance_work_mem=1GB -c max_connections=100 >"$W/pg/log" 2>&1 &
sleep 3
export PGPASSWORD=bench
URL="postgres://postgres@127.0.0.1:$PORT/postgres"
"$BENCH" push "$URL" "$W/a.bin"
echo "load $(cat /proc/loadavg)"
"$BENCH" recall "$URL" "$W/a.bin" 200 "$N"
"$BENCH" recall "$URL" "$W/a.bin" 200 "$N" 200
echo "sizes: $("$PG/psql" -At -h 127.0.0.1 -p "$PORT" -U postgres postgres -c "SELECT 'papers table ' || pg_table_size('recommend.papers') || ' B, hnsw index ' || pg_relation_size('recommend.papers_embedding') || ' B, terms ' || pg_total_relation_size('recommend.terms') || ' B, plan ' || pg_total_relation_size('recommend.plan') || ' B, database ' || pg_database_size('postgres') || ' B'")"
start() { # port args...
  local port=$1; shift
  "$BIN" serve --addr 127.0.0.1:"$port" "$@" 2>>"$W/serve-$port.log" >/dev/null &
  pids+=($!)
  for _ in $(seq 1 1200); do
    curl -sf "http://127.0.0.1:$port/healthz" | grep -q '"model":"ready"' && return 0; sleep 0.5
  done
  echo "serve on $port did not get ready"; return 1
}
start 18301 --index "$W/a.bin"
start 18302 --store "$URL"
for s in 5 777 31337 123456 270001; do
  echo "like syn-$s: $(for p in 18301 18302; do curl -s "http://127.0.0.1:$p/api/like?title=syn-$s&k=10" | md5sum; done | sort -u | wc -l) distinct answer(s) from the two servers"
done
for clients in 1 16; do
  for port in 18301 18302; do
    "$BENCH" load "http://127.0.0.1:$port" like "$clients" 5 >/dev/null   # warm-up
    echo "like, $clients client(s), $([ $port = 18301 ] && echo --index || echo --store): $("$BENCH" load "http://127.0.0.1:$port" like "$clients" "$SECS"); load $(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
echo "== $(date -u +%FT%TZ) done; load $(cat /proc/loadavg)"
