# title_variants.py DIR: title-only forms of four judged lists (identity, title, section, links and
# dates kept; notes, summaries, tags dropped) written to DIR, from the repository root.
import json,sys
KEEP={"id","title","topic","link","url","year","date","arxiv"}
src={"t-shipped":"corpus/papers.jsonl","t-ai":"bench/corpora/awesome-rl-ai-agents.jsonl",
     "t-rlfa":"bench/corpora/awesome-rl-for-agents.jsonl","t-credit":"bench/corpora/Awesome-Credit-Assignment-in-LLM-RL.jsonl"}
for n,f in src.items():
    with open(f) as i, open(f"{sys.argv[1]}/{n}.jsonl","w") as o:
        for line in i:
            if not line.strip(): continue
            p=json.loads(line); o.write(json.dumps({k:v for k,v in p.items() if k in KEEP},ensure_ascii=False)+"\n")
