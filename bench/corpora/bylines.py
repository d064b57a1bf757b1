#!/usr/bin/env python3
"""Writes copies of corpora whose descriptions open with a byline (authors and affiliations),
as many real lists' summaries do, to measure that the weak-match warning is not broken by it.

    python3 bench/corpora/bylines.py OUT_DIR

English summaries get "Wei Zhang, Na Li, ... (Tsinghua University; Shanghai AI Laboratory). ",
Chinese highlights get "作者：张伟、李娜、王芳（清华大学）。". Names are drawn deterministically
from each record's id, so every run writes the same files.
"""
import hashlib, json, os, sys

EN = ["Wei Zhang", "Na Li", "Fang Wang", "Jun Chen", "Min Liu", "Yang Zhao", "Lei Huang",
      "Jing Wu", "Tao Xu", "Hui Sun", "Maria Garcia", "James Smith", "Anna Müller", "Kenji Sato"]
ORG = ["Tsinghua University", "Shanghai AI Laboratory", "Peking University", "Google DeepMind",
       "Stanford University", "Microsoft Research", "Zhejiang University", "Alibaba Group"]
ZH = ["张伟", "李娜", "王芳", "陈军", "刘敏", "赵阳", "黄磊", "吴静"]
ZH_ORG = ["清华大学", "上海人工智能实验室", "北京大学", "浙江大学", "阿里巴巴集团"]


def pick(seed, pool, k):
    h = hashlib.sha256(seed.encode()).digest()
    return [pool[h[i] % len(pool)] for i in range(k)]


def byline_en(rid):
    names = list(dict.fromkeys(pick(rid, EN, 5)))
    orgs = list(dict.fromkeys(pick(rid + "o", ORG, 2)))
    return ", ".join(names[:-1]) + f" and {names[-1]} ({'; '.join(orgs)}). "


def byline_zh(rid):
    names = list(dict.fromkeys(pick(rid, ZH, 3)))
    return f"作者：{'、'.join(names)}（{pick(rid + 'o', ZH_ORG, 1)[0]}）。"


def main(out):
    os.makedirs(out, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    sources = {
        "abstracts-awesome-rl-ai-agents": os.path.join(here, "abstracts/awesome-rl-ai-agents.jsonl"),
        "abstracts-Awesome-Agent-RL-Papers": os.path.join(here, "abstracts/Awesome-Agent-RL-Papers.jsonl"),
        "shipped": os.path.join(here, "../../corpus/papers.jsonl"),
    }
    for name, path in sources.items():
        with open(path, encoding="utf-8") as f, \
             open(os.path.join(out, f"bylines-{name}.jsonl"), "w", encoding="utf-8") as w:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                if r.get("summary"):
                    r["summary"] = byline_en(r["id"]) + r["summary"]
                if r.get("highlight") and any("\u4e00" <= c <= "\u9fff" for c in r["highlight"]):
                    r["highlight"] = byline_zh(r["id"]) + r["highlight"]
                w.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bylines")
