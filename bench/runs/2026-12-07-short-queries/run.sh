# BIN OUT: quick bench on the shipped list and all eight imported list variants, indexes kept in OUT/idx
BIN=$1; OUT=$2; mkdir -p "$OUT/idx"; cd /work/main
uptime > "$OUT/load-start.txt"
"$BIN" bench --quick -f json > "$OUT/shipped.json" 2> "$OUT/shipped.stderr"
for l in abstracts/awesome-rl-ai-agents abstracts/Awesome-Agent-RL-Papers abstracts/awesome-rl-for-agents abstracts/Awesome-Credit-Assignment-in-LLM-RL awesome-rl-ai-agents Awesome-Agent-RL-Papers awesome-rl-for-agents Awesome-Credit-Assignment-in-LLM-RL; do
  n=${l//\//-}
  "$BIN" bench --quick --corpus bench/corpora/$l.jsonl --index "$OUT/idx/$n.bin" -f json > "$OUT/$n.json" 2> "$OUT/$n.stderr"
done
uptime > "$OUT/load-end.txt"
