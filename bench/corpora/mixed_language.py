#!/usr/bin/env python3
"""Writes the shipped papers as a user's list in two languages would hold them: each paper
described either by its Chinese highlight or by its English summary, with its title, year and
links; no topic, tags or builds_on. Three forms, each paper's language drawn from its id (so
every run writes the same files): `mixed-a` (the md5 of the id even: Chinese, 72 of 141),
`mixed-b` (the sha1 odd: 60 of 141) and `mixed-minority` (the sha1 a multiple of 7: 24 of 141).
The judged sets of the shipped list (`bench/judgments.jsonl`, `bench/judgments-heldout.jsonl`)
judge them, since the papers and ids are the same.

    python3 bench/corpora/mixed_language.py OUT_DIR
"""
import hashlib, json, os, sys

FORMS = {
    "mixed-a": lambda rid: int(hashlib.md5(rid.encode()).hexdigest(), 16) % 2 == 0,
    "mixed-b": lambda rid: int(hashlib.sha1(rid.encode()).hexdigest(), 16) % 2 == 1,
    "mixed-minority": lambda rid: int(hashlib.sha1(rid.encode()).hexdigest(), 16) % 7 == 0,
}


def main(out):
    os.makedirs(out, exist_ok=True)
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    papers = [json.loads(l) for l in open(os.path.join(root, "corpus", "papers.jsonl"), encoding="utf-8") if l.strip()]
    for name, chinese in FORMS.items():
        with open(os.path.join(out, name + ".jsonl"), "w", encoding="utf-8") as f:
            for p in papers:
                zh = chinese(p["id"])
                notes = p.get("highlight", "") if zh else p.get("summary", "")
                notes = notes or p.get("summary", "") or p.get("highlight", "")
                row = {k: p[k] for k in ("id", "title", "year", "arxiv", "url", "authors") if k in p}
                row["summary"] = notes
                f.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
