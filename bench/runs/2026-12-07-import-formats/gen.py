"""gen.py OUT N: the same N papers (title, abstract, authors, year, DOI, keywords) as BibTeX,
RIS and a JSON list, for timing each importer on equal content."""
import json, random, sys, os
out, n = sys.argv[1], int(sys.argv[2])
os.makedirs(out, exist_ok=True)
rng = random.Random(7)
words = ("policy gradient reward model agent web search tool memory planning credit assignment "
         "exploration verifier rollout trajectory reasoning curriculum distillation").split()
papers = []
for i in range(n):
    t = " ".join(rng.choice(words) for _ in range(8)).title() + f" {i}"
    a = " ".join(rng.choice(words) for _ in range(150)) + "."
    au = [(f"Family{rng.randrange(999)}", f"Given{rng.randrange(99)}") for _ in range(4)]
    papers.append(dict(t=t, a=a, au=au, y=2015 + i % 10, doi=f"10.1000/x{i}", kw=rng.sample(words, 3)))
with open(f"{out}/list.bib", "w") as f:
    for i, p in enumerate(papers):
        f.write(f"@article{{k{i},\n  title = {{{p['t']}}},\n  abstract = {{{p['a']}}},\n"
                f"  author = {{{' and '.join(a + ', ' + g for a, g in p['au'])}}},\n"
                f"  year = {{{p['y']}}},\n  doi = {{{p['doi']}}},\n  keywords = {{{', '.join(p['kw'])}}}\n}}\n\n")
with open(f"{out}/list.ris", "w") as f:
    for i, p in enumerate(papers):
        f.write(f"TY  - JOUR\nID  - k{i}\nTI  - {p['t']}\nAB  - {p['a']}\n")
        f.writelines(f"AU  - {a}, {g}\n" for a, g in p["au"])
        f.write(f"PY  - {p['y']}\nDO  - {p['doi']}\n")
        f.writelines(f"KW  - {k}\n" for k in p["kw"])
        f.write("ER  - \n\n")
with open(f"{out}/list.json", "w") as f:
    json.dump([{"id": f"k{i}", "title": p["t"], "abstract": p["a"],
                "author": [{"family": a, "given": g} for a, g in p["au"]], "year": p["y"],
                "doi": p["doi"], "keywords": p["kw"]} for i, p in enumerate(papers)], f, indent=1)
