#!/usr/bin/env bash
# run.sh BIN OUT: four judged lists as a user has them (bare titles; titles + one-line notes),
# each run through `recommend index --abstracts` against fake_arxiv.py (the arXiv API's Atom,
# answering from the bench's "with abstracts" summaries), then `bench --quick` on the result;
# and in the same run `bench --quick` on the lists as they are (today's ranking, no abstracts)
# and on their whole "with abstracts" forms.
# Run from the repository root with RECOMMEND_MODEL_DIR set.
set -u
BIN=$1; OUT=$2; HERE=$(dirname "$0"); mkdir -p "$OUT"
PORT=${PORT:-18779}
export RECOMMEND_ARXIV_URL=http://127.0.0.1:$PORT
for l in ${LISTS:-Awesome-Agent-RL-Papers awesome-rl-ai-agents awesome-rl-for-agents Awesome-Credit-Assignment-in-LLM-RL}; do
  j=bench/judgments-$l.jsonl
  "$BIN" bench --quick --corpus bench/corpora/$l.jsonl --judgments "$j" --index "$OUT/$l-plain.bin" -f json > "$OUT/$l-plain.json" 2> "$OUT/$l-plain.stderr"
  rm -f "$OUT/$l.bin" "$OUT/$l.bin.abstracts.json"
  # The fake API knows this list's papers only, as its summaries describe them.
  python3 "$HERE/fake_arxiv.py" "$PORT" bench/corpora/abstracts/$l.jsonl 2>> "$OUT/server.log" &
  SERVER=$!; sleep 1
  "$BIN" index --corpus bench/corpora/$l.jsonl --out "$OUT/$l.bin" --abstracts 2> "$OUT/$l-index.stderr"
  kill $SERVER; wait $SERVER 2>/dev/null
  "$BIN" --index "$OUT/$l.bin" bench --quick --judgments "$j" -f json > "$OUT/$l-fetched.json" 2> "$OUT/$l-fetched.stderr"
  # The whole "with abstracts" form (every paper described, the list's notes dropped).
  "$BIN" bench --quick --corpus bench/corpora/abstracts/$l.jsonl --judgments "$j" --index "$OUT/$l-whole.bin" -f json > "$OUT/$l-whole.json" 2> "$OUT/$l-whole.stderr"
  rm -f "$OUT"/*.bin*
done
