#!/usr/bin/env bash
# bench/run-all.sh BIN OUTDIR: `recommend bench --quick -f json` on the shipped list and on each
# imported list with a judged set, one file per list in OUTDIR (run from the repository root).
# Quality figures are deterministic; OUTDIR is what bench/runs/<date>/ holds.
set -u
BIN=$1; OUT=$2; mkdir -p "$OUT"
"$BIN" bench --quick -f json > "$OUT/shipped.json" 2> "$OUT/shipped.stderr"
for l in abstracts/awesome-rl-ai-agents abstracts/Awesome-Agent-RL-Papers awesome-rl-ai-agents Awesome-Agent-RL-Papers awesome-rl-for-agents Awesome-Credit-Assignment-in-LLM-RL; do
  n=${l//\//-}
  "$BIN" bench --quick --corpus bench/corpora/$l.jsonl --index /tmp/runall-$$-$n.bin -f json > "$OUT/$n.json" 2> "$OUT/$n.stderr"
  rm -f /tmp/runall-$$-$n.bin*
done
