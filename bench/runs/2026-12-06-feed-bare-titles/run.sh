#!/usr/bin/env bash
# run.sh BIN OUT: `recommend bench --quick -f json` (its `feed` section is the time split) on the
# shipped list, the six imported list forms with judged sets, and four bare-title forms
# (title_variants.py), one JSON per list in OUT. Run from the repository root.
set -u
BIN=$1; OUT=$2; HERE=$(dirname "$0"); mkdir -p "$OUT/lists"
python3 "$HERE/title_variants.py" "$OUT/lists"
"$BIN" bench --quick -f json > "$OUT/shipped.json" 2> "$OUT/shipped.stderr"
for l in bench/corpora/abstracts/awesome-rl-ai-agents bench/corpora/abstracts/Awesome-Agent-RL-Papers \
         bench/corpora/awesome-rl-ai-agents bench/corpora/Awesome-Agent-RL-Papers \
         bench/corpora/awesome-rl-for-agents bench/corpora/Awesome-Credit-Assignment-in-LLM-RL \
         "$OUT"/lists/t-shipped "$OUT"/lists/t-ai "$OUT"/lists/t-rlfa "$OUT"/lists/t-credit; do
  n=$(basename "$l"); case $l in bench/corpora/abstracts/*) n=abstracts-$n;; esac
  "$BIN" bench --quick --corpus "$l.jsonl" --index "/tmp/feedrun-$$-$n.bin" -f json > "$OUT/$n.json" 2> "$OUT/$n.stderr"
  rm -f "/tmp/feedrun-$$-$n.bin"*
done
