"""The synthetic described lists of this run: N papers, 60 topics, a 7-word title and a
130-word summary each, words drawn from the two committed lists with abstracts (35% from the
paper's topic's 40 words). Run from the repository root: python3 make_list.py N OUT.jsonl"""
import json, random, sys

random.seed(7)
words = []
for f in ['bench/corpora/abstracts/awesome-rl-ai-agents.jsonl',
          'bench/corpora/abstracts/Awesome-Agent-RL-Papers.jsonl']:
    for line in open(f):
        p = json.loads(line)
        words += [w.strip('.,;:()') for w in (p.get('summary') or '').split() if w.isalpha()]
words = [w for w in words if len(w) > 2]
topics = [random.sample(words, 40) for _ in range(60)]
n, out = int(sys.argv[1]), open(sys.argv[2], 'w')
for i in range(n):
    t = i % 60
    body = [random.choice(topics[t]) if random.random() < 0.35 else random.choice(words)
            for _ in range(130)]
    title = ' '.join(random.choice(topics[t]) for _ in range(7)).capitalize() + f' {i}'
    out.write(json.dumps({"id": f"syn-{i}", "title": title, "summary": ' '.join(body) + '.',
                          "topic": f"Topic {t}"}) + '\n')
