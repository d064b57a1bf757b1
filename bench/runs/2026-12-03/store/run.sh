#!/usr/bin/env bash
# The store at scale (benches/store.rs): a PostgreSQL 16 + pgvector server from the pgserver
# wheel (scripts/setup.sh), 100k synthetic papers pushed, pgvector recall@10 against the exact
# scan, warm latency of serve --store against serve --index under 16 clients, then two
# serve --store processes under load while a push adds 10k papers. Output: stdout (tee'd to
# out.txt by the caller). Usage: run.sh WORKDIR (where build put a.bin and b.bin).
set -euo pipefail
W="${1:?usage: run.sh WORKDIR}"
ROOT="$(cd "$(dirname "$0")/../../../.." && pwd)"
cp "$ROOT/target/release/recommend" "$W/recommend"   # a rebuild meanwhile changes nothing here
BIN="$W/recommend"
BENCH="${STORE_BENCH:-$(ls "$ROOT"/target/release/deps/store-* | grep -v '\.d$' | head -1)}"
PG="${RECOMMEND_PG_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/recommend/pgserver/pgserver/pginstall/bin}"
PORT=55991
as_user() { if [ "$(id -u)" -eq 0 ]; then unshare --map-user=1000 --map-group=1000 -- "$@"; else "$@"; fi; }
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$W/pg/data/postmaster.pid" ] && kill -INT "$(head -1 "$W/pg/data/postmaster.pid")" 2>/dev/null || true
}
trap cleanup EXIT
echo "== $(date -u +%FT%TZ) $(nproc) cores, $(free -g | awk '/Mem/{print $2}') GiB; load $(cat /proc/loadavg)"
rm -rf "$W/pg" && mkdir -p "$W/pg/sock" && printf bench > "$W/pg/pw"
as_user "$PG/initdb" -D "$W/pg/data" -U postgres --auth-host=scram-sha-256 --auth-local=trust \
  --pwfile="$W/pg/pw" --no-sync --no-instructions -E UTF8 >/dev/null
as_user "$PG/postgres" -D "$W/pg/data" -p $PORT -k "$W/pg/sock" -c listen_addresses=127.0.0.1 \
  -c shared_buffers=2GB -c maintenance_work_mem=1GB -c max_connections=100 >"$W/pg/log" 2>&1 &
sleep 2
URL="postgres://postgres:bench@127.0.0.1:$PORT/postgres"
"$BENCH" push "$URL" "$W/a.bin"
echo "load $(cat /proc/loadavg)"
"$BENCH" recall "$URL" "$W/a.bin" 200 "${ALL:-110000}"
echo "sizes: $(psql -At -h 127.0.0.1 -p $PORT -U postgres postgres -c "SELECT 'papers table ' || pg_size_pretty(pg_table_size('recommend.papers')) || ', hnsw index ' || pg_size_pretty(pg_relation_size('recommend.papers_embedding')) || ', terms ' || pg_size_pretty(pg_total_relation_size('recommend.terms')) || ', plan ' || pg_size_pretty(pg_total_relation_size('recommend.plan')) || ', database ' || pg_size_pretty(pg_database_size('postgres'))" 2>/dev/null || echo '(psql missing)')"
start_serve() { # port args...
  local port=$1; shift
  "$BIN" serve --addr 127.0.0.1:$port "$@" 2>>"$W/serve-$port.log" >/dev/null &
  pids+=($!)
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/healthz" | grep -q '"model":"ready"' && return 0; sleep 0.5
  done
  echo "serve on $port did not get ready"; return 1
}
export PGPASSWORD=bench
start_serve 18001 --index "$W/a.bin"
start_serve 18002 --store "postgres://postgres@127.0.0.1:$PORT/postgres"
for kind in like search lexical; do
  for port in 18001 18002; do
    "$BENCH" load "http://127.0.0.1:$port" "$kind" 16 5 >/dev/null   # warm-up
    "$BENCH" load "http://127.0.0.1:$port" "$kind" 16 "${SECS:-30}"
    echo "load $(cat /proc/loadavg)"
  done
done
kill "${pids[0]}"
start_serve 18003 --store "postgres://postgres@127.0.0.1:$PORT/postgres"
while [ ! -f "$W/b.bin" ]; do sleep 10; done   # built beside the run (benches/store.rs build)
echo "== $(date -u +%FT%TZ) two serve --store under load while a push adds 10k papers; load $(cat /proc/loadavg)"
"$BENCH" load http://127.0.0.1:18002 like 8 "${DURING:-150}" > "$W/during-a.txt" &
la=$!
"$BENCH" load http://127.0.0.1:18003 like 8 "${DURING:-150}" > "$W/during-b.txt" &
lb=$!
sleep 5
"$BENCH" push "$URL" "$W/b.bin"
wait $la $lb
cat "$W/during-a.txt" "$W/during-b.txt"
# Both servers must take the new version without a restart (they load it in the background).
for port in 18002 18003; do
  for t in $(seq 1 120); do
    curl -s "http://127.0.0.1:$port/healthz" | grep -q '"version":2' && { echo "serve on $port answers version 2 within ${t} s of the push"; break; }
    sleep 1
  done
  curl -s "http://127.0.0.1:$port/healthz"; echo
done
echo "== $(date -u +%FT%TZ) done; load $(cat /proc/loadavg)"
