#!/usr/bin/env python3
"""Merge verified enrichment records (id + curated fields + note) into corpus/papers.jsonl.

Usage: scripts/merge_enrichment.py ENRICH.jsonl [...]
The first record for an id wins. A rewritten `highlight` moves the seed's text to
`seed_highlight`. Verification notes go to corpus/provenance.json (id -> note; not a corpus file). Deterministic.
"""
import json, sys, os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORDER = ["id", "title", "aliases", "highlight", "seed_highlight", "summary", "topic", "topic_en",
         "kind", "open_source", "link", "sources", "capability", "direction", "arxiv", "year",
         "url", "code", "authors", "tags", "builds_on"]
FIELDS = ["summary", "arxiv", "year", "url", "code", "authors", "tags", "builds_on", "kind"]

def main(paths):
    enrich = {}
    for path in paths:
        for line in open(path, encoding="utf-8"):
            if line.strip():
                r = json.loads(line)
                enrich.setdefault(r["id"], r)
    corpus_path = os.path.join(ROOT, "corpus", "papers.jsonl")
    papers = [json.loads(l) for l in open(corpus_path, encoding="utf-8") if l.strip()]
    notes = []
    for p in papers:
        e = enrich.get(p["id"])
        if not e:
            continue
        for f in FIELDS:
            if e.get(f) not in (None, "", []):
                p[f] = e[f]
        new_h = (e.get("highlight") or "").strip()
        if new_h and new_h != p.get("highlight"):
            p.setdefault("seed_highlight", p.get("highlight", ""))
            p["highlight"] = new_h
        if e.get("note"):
            notes.append({"id": p["id"], "note": e["note"]})
    with open(corpus_path + ".tmp", "w", encoding="utf-8") as out:
        for p in papers:
            rec = {k: p[k] for k in ORDER if k in p and p[k] not in (None, "", [])}
            if "open_source" in p:
                rec["open_source"] = p["open_source"]
            rec = {k: rec[k] for k in ORDER if k in rec}
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    os.replace(corpus_path + ".tmp", corpus_path)
    prov = os.path.join(ROOT, "corpus", "provenance.json")
    with open(prov + ".tmp", "w", encoding="utf-8") as out:
        json.dump({n["id"]: n["note"] for n in notes}, out, ensure_ascii=False, indent=1)
        out.write("\n")
    os.replace(prov + ".tmp", prov)

if __name__ == "__main__":
    main(sys.argv[1:])
