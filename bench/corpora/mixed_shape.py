#!/usr/bin/env python3
"""Writes imported lists with abstracts as a user's library often holds them: some papers with
their abstract, the others a bare title (a Zotero library's items without an abstract, a list
whose author described only some entries). Each paper keeps or loses its description by a hash
of its id, so every run writes the same files: `half` (the md5 of the id even: about half bare)
and `third` (the sha1 a multiple of 3: about a third bare). Everything else of the record stays.
The list's own judged set (`bench/judgments-<list>.jsonl`) judges both forms: the ids are the
same.

    python3 bench/corpora/mixed_shape.py OUT_DIR
"""
import glob, hashlib, json, os, sys

FORMS = {
    "half": lambda rid: int(hashlib.md5(rid.encode()).hexdigest(), 16) % 2 == 0,
    "third": lambda rid: int(hashlib.sha1(rid.encode()).hexdigest(), 16) % 3 == 0,
}
DESCRIBING = ("summary", "highlight", "abstract", "note", "notes")


def main(out):
    os.makedirs(out, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    for path in sorted(glob.glob(os.path.join(here, "abstracts", "*.jsonl"))):
        name = os.path.basename(path)[: -len(".jsonl")]
        papers = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]
        for form, bare in FORMS.items():
            with open(os.path.join(out, f"{name}.{form}.jsonl"), "w", encoding="utf-8") as f:
                for p in papers:
                    row = dict(p)
                    if bare(p["id"]):
                        for k in DESCRIBING:
                            row.pop(k, None)
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
