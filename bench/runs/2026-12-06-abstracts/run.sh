#!/usr/bin/env bash
# run.sh BIN OUT: two judged lists as a user has them (bare titles; titles + one-line notes),
# each run through `recommend index --abstracts` against fake_arxiv.py (the arXiv API's Atom,
# answering from the bench's "with abstracts" summaries), then `bench --quick` on the result;
# and in the same run `bench --quick` on the lists as they are (today's ranking, no abstracts).
# Run from the repository root with RECOMMEND_MODEL_DIR set.
set -u
BIN=$1; OUT=$2; HERE=$(dirname "$0"); mkdir -p "$OUT"
PORT=${PORT:-18779}
python3 "$HERE/fake_arxiv.py" "$PORT" bench/corpora/abstracts/*.jsonl 2> "$OUT/server.log" &
SERVER=$!; trap 'kill $SERVER' EXIT; sleep 1
export RECOMMEND_ARXIV_URL=http://127.0.0.1:$PORT
for l in Awesome-Agent-RL-Papers awesome-rl-ai-agents; do
  j=bench/judgments-$l.jsonl
  "$BIN" bench --quick --corpus bench/corpora/$l.jsonl --judgments "$j" --index "$OUT/$l-plain.bin" -f json > "$OUT/$l-plain.json" 2> "$OUT/$l-plain.stderr"
  rm -f "$OUT/$l.bin" "$OUT/$l.bin.abstracts.json"
  "$BIN" index --corpus bench/corpora/$l.jsonl --out "$OUT/$l.bin" --abstracts 2> "$OUT/$l-index.stderr"
  "$BIN" --index "$OUT/$l.bin" bench --quick --judgments "$j" -f json > "$OUT/$l-fetched.json" 2> "$OUT/$l-fetched.stderr"
  rm -f "$OUT"/*.bin*
done
