#!/usr/bin/env python3
"""Convert an "awesome" reading list (Markdown README with paper tables) to JSONL.

Deterministic, standard library only.  Usage:

    python3 import_awesome.py convert --profile NAME README.md OUT.jsonl
    python3 import_awesome.py validate OUT.jsonl [OUT2.jsonl ...]

Each output line is one paper row:
    {"id", "title", "highlight"?, "topic", "link"?}

* topic     -- the nearest heading above the table (lowest-level heading that
               groups the rows), with emojis and numbering stripped, then mapped
               through the profile's topic aliases.
* title     -- the title/method/paper cell, Markdown stripped.
* highlight -- the row's description-like cell (Description, Key mechanism,
               Mechanism, ...), Markdown stripped; omitted when absent.
* link      -- the paper URL: a link labelled Paper/PDF/arXiv/OpenReview in
               the row, else a link in the title cell; http(s) only.
* id        -- ASCII slug of the title (<= 60 chars), -2, -3 ... on collisions.

Row filtering (generic, see README.md next to this file):
* header / separator rows and bold-only group rows (e.g. "**PPO family**")
  are skipped;
* a row whose only links are Code/Dataset/Blog/Website/Model/... links (no
  paper link) is a software release, data set, product or blog post -> skipped;
* a row with no link at all is kept (a paper listed without a link);
* with the profile flag keep_rows_with_unusable_paper_link, a row whose
  Paper link is not http(s) is kept too, without link;
* an exact repeat of an earlier row (same topic, title and link, after topic
  aliasing) is skipped, so a section pasted twice counts once.  The same paper
  listed under two different topics is kept in both.
"""
import argparse
import json
import re
import sys
import unicodedata

# Per-list settings.  Besides topic aliases, a profile may add title and
# highlight column names (tried after the built-in ones) and may keep a row
# whose Paper link is not http(s) (kept without link).  All of these default
# to "off", so the older profiles parse exactly as before.
PROFILES = {
    # yh-yao/awesome-rl-ai-agents: the four "## Task: X" sections are repeated
    # later as "### X" under "## Task Agents" (the later copy has one more row).
    "awesome-rl-ai-agents": {
        "topic_aliases": {
            "Task: Search & Research Agents": "Search & Research Agents",
            "Task: Code Agents": "Code Agents",
            "Task: Mathematical Agents": "Mathematical Agents",
            "Task: GUI Agents": "GUI Agents",
        },
    },
    # YsTvT/Awesome-Agent-RL-Papers: titles are links, no description column.
    "Awesome-Agent-RL-Papers": {
        "topic_aliases": {},
    },
    # xhyumiracle/Awesome-AgenticLLM-RL-Papers (paper list of the survey "The
    # Landscape of Agentic Reinforcement Learning for LLMs"): flat "## SecN.M"
    # sections, one table each.  The Environments and Frameworks tables name
    # their title column "Environment / Benchmark" and "Framework", and the
    # Frameworks table describes rows under "Key Features".  One paper row
    # (DeepSeek-Prover-v2) has a Paper link without a scheme; it is kept,
    # without link, instead of being taken for a code/model-only row.
    "Awesome-AgenticLLM-RL-Papers": {
        "topic_aliases": {},
        "extra_title_columns": ["environment / benchmark", "framework"],
        "extra_highlight_columns": ["key features"],
        "keep_rows_with_unusable_paper_link": True,
    },
    "generic": {"topic_aliases": {}},
}

TITLE_COLUMNS = ["title", "paper title", "paper", "论文", "论文标题", "method", "系统"]
HIGHLIGHT_COLUMNS = ["description", "highlight", "notes", "note", "summary",
                     "核心贡献", "核心思想", "简介", "描述", "key mechanism", "mechanism"]
PAPER_LABELS = re.compile(r"^(paper\d*|pdf|arxiv|openreview|acl|论文)$", re.I)
ARXIV_ID = re.compile(r"^(arxiv\s*)?\d{4}\.\d{4,5}(v\d+)?$", re.I)
NON_PAPER_LABELS = re.compile(
    r"^(code|github|dataset|data|blog|website|web|model|models|demo|project|"
    r"project page|homepage|hf|huggingface|x|twitter|slides|video)$", re.I)

LINK_RE = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
SEP_RE = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
CELL_SPLIT = re.compile(r"(?<!\\)\|")

GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon",
         "θ": "theta", "λ": "lambda", "μ": "mu", "π": "pi", "σ": "sigma",
         "τ": "tau", "φ": "phi", "ω": "omega", "²": "2", "³": "3"}


def strip_md(text):
    """Markdown/HTML cell text -> plain text."""
    t = text
    t = re.sub(r"<br\s*/?>", " ", t, flags=re.I)
    t = re.sub(r"<img[^>]*>", " ", t, flags=re.I)
    t = re.sub(r"<[^>]+>", " ", t)
    # images disappear, links keep their label
    t = LINK_RE.sub(lambda m: "" if m.group(1) else m.group(2), t)
    t = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|@])", r"\1", t)   # markdown escapes
    t = re.sub(r"(\*\*|__)(.+?)\1", r"\2", t)
    t = re.sub(r"(?<![\w*])[*_](?!\s)(.+?)(?<!\s)[*_](?![\w*])", r"\1", t)
    t = t.replace("`", "")
    t = re.sub(r"\s+", " ", t).strip()
    return t


def clean_title(cell):
    t = strip_md(cell)
    t = re.sub(r"\s*\(duplicate listing\)\s*$", "", t, flags=re.I)
    return t.strip(" -–—")


def clean_topic(heading):
    t = strip_md(heading)
    # drop emojis / pictographs / variation selectors / zero-width joiners
    t = "".join(ch for ch in t
                if unicodedata.category(ch) not in ("So", "Sk", "Cf", "Mn")
                or ch.isalnum())
    t = re.sub(r"^\s*(sec(tion)?\s*)?\d+(\.\d+)*[.)]?\s+", "", t, flags=re.I)
    t = re.sub(r"^\s*第[一二三四五六七八九十百\d]+[章节部分]+\s*[|｜:：]?\s*", "", t)
    t = re.sub(r"^\s*[IVX]+[.)]\s+", "", t)
    return re.sub(r"\s+", " ", t).strip(" |:-")


def slugify(title, maxlen=60):
    t = "".join(GREEK.get(ch, ch) for ch in title)
    t = unicodedata.normalize("NFKD", t).encode("ascii", "ignore").decode("ascii")
    t = t.lower().replace("&", " and ").replace("@", " at ").replace("+", " plus ")
    words = re.findall(r"[a-z0-9]+", t)
    slug = ""
    for w in words:
        cand = w if not slug else slug + "-" + w
        if len(cand) > maxlen:
            break
        slug = cand
    if not slug and words:
        slug = words[0][:maxlen]
    return slug or "paper"


def split_row(line):
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    return [c.strip() for c in CELL_SPLIT.split(s)]


def links_in(cell):
    """[(label, url)] of non-image links in a cell."""
    return [(strip_md(m.group(2)), m.group(3)) for m in LINK_RE.finditer(cell)
            if not m.group(1)]


def is_http(url):
    return bool(re.match(r"^https?://\S+$", url or ""))


def pick_column(headers, names):
    for name in names:
        for i, h in enumerate(headers):
            if h == name:
                return i
    return None


def parse(markdown, profile):
    aliases = profile.get("topic_aliases", {})
    title_columns = TITLE_COLUMNS + profile.get("extra_title_columns", [])
    highlight_columns = HIGHLIGHT_COLUMNS + profile.get("extra_highlight_columns", [])
    keep_unusable = profile.get("keep_rows_with_unusable_paper_link", False)
    lines = markdown.splitlines()
    topic = ""
    rows = []
    skipped = []
    notes = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = HEADING_RE.match(line)
        if m and not line.startswith("#!"):
            topic = clean_topic(m.group(2))
            topic = aliases.get(topic, topic)
            i += 1
            continue
        is_table = (line.lstrip().startswith("|") and i + 1 < len(lines)
                    and SEP_RE.match(lines[i + 1].strip()))
        if not is_table:
            i += 1
            continue
        headers = [strip_md(h).lower() for h in split_row(line)]
        headers = [re.sub(r"[^\w\s./&-]", "", h).strip() for h in headers]
        t_col = pick_column(headers, title_columns)
        h_col = pick_column(headers, highlight_columns)
        i += 2
        while i < len(lines) and lines[i].lstrip().startswith("|"):
            cells = split_row(lines[i])
            i += 1
            if t_col is None or t_col >= len(cells):
                continue
            raw_title = cells[t_col]
            title = clean_title(raw_title)
            others = [c for j, c in enumerate(cells) if j != t_col and strip_md(c)]
            if not title:
                continue
            if re.fullmatch(r"\s*(\*\*|__)(.+?)(\*\*|__)\s*", raw_title) and not others:
                skipped.append((topic, title, "group header row"))
                continue
            # links: paper-labelled links anywhere, else a link on the title
            paper_link = None
            unusable_paper_link = None
            non_paper = []
            for j, c in enumerate(cells):
                for label, url in links_in(c):
                    if j == t_col:
                        continue
                    if PAPER_LABELS.match(label) or ARXIV_ID.match(label):
                        if paper_link is None and is_http(url):
                            paper_link = url
                        elif not is_http(url) and unusable_paper_link is None:
                            unusable_paper_link = url
                    elif NON_PAPER_LABELS.match(label):
                        non_paper.append(label)
            if paper_link is None:
                for label, url in links_in(raw_title):
                    if is_http(url):
                        paper_link = url
                        break
            if paper_link is None and non_paper:
                if keep_unusable and unusable_paper_link is not None:
                    notes.append((topic, title, "kept without link: Paper link %r is not http(s)"
                                  % unusable_paper_link))
                else:
                    skipped.append((topic, title, "no paper link, only: " + ", ".join(non_paper)))
                    continue
            rec = {"title": title, "topic": topic}
            if h_col is not None and h_col < len(cells):
                hl = strip_md(cells[h_col])
                if hl and hl not in ("-", "—", "--"):
                    rec["highlight"] = hl
            if paper_link:
                rec["link"] = paper_link
            rows.append(rec)
    return rows, skipped, notes


def build(rows):
    seen = set()
    used = {}
    out = []
    dups = []
    for r in rows:
        key = (r["topic"], r["title"].lower(), r.get("link", ""))
        if key in seen:
            dups.append(r)
            continue
        seen.add(key)
        base = slugify(r["title"])
        n = used.get(base, 0) + 1
        used[base] = n
        rid = base if n == 1 else "%s-%d" % (base, n)
        while rid in used and rid != base:
            n += 1
            rid = "%s-%d" % (base, n)
        used.setdefault(rid, 1)
        rec = {"id": rid, "title": r["title"]}
        if "highlight" in r:
            rec["highlight"] = r["highlight"]
        rec["topic"] = r["topic"]
        if "link" in r:
            rec["link"] = r["link"]
        out.append(rec)
    return out, dups


def cmd_convert(args):
    profile = PROFILES[args.profile]
    with open(args.input, encoding="utf-8") as f:
        md = f.read()
    rows, skipped, notes = parse(md, profile)
    recs, dups = build(rows)
    with open(args.output, "w", encoding="utf-8", newline="\n") as f:
        for r in recs:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    topics = {}
    for r in recs:
        topics[r["topic"]] = topics.get(r["topic"], 0) + 1
    print("%s: %d papers, %d topics -> %s" % (args.input, len(recs), len(topics), args.output))
    for t, n in topics.items():
        print("  %3d  %s" % (n, t))
    for t, title, why in skipped:
        print("  skipped [%s] %s (%s)" % (t, title, why))
    for r in dups:
        print("  skipped [%s] %s (repeat of an earlier row)" % (r["topic"], r["title"]))
    for t, title, why in notes:
        print("  note [%s] %s (%s)" % (t, title, why))
    return 0


def cmd_validate(args):
    status = 0
    for path in args.files:
        ids, topics, problems = set(), {}, []
        n = 0
        with open(path, encoding="utf-8") as f:
            for ln, line in enumerate(f, 1):
                n += 1
                try:
                    r = json.loads(line)
                except ValueError as e:
                    problems.append("line %d: invalid JSON (%s)" % (ln, e))
                    continue
                extra = set(r) - {"id", "title", "highlight", "topic", "link"}
                if extra:
                    problems.append("line %d: extra keys %s" % (ln, sorted(extra)))
                rid = r.get("id", "")
                if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rid or ""):
                    problems.append("line %d: bad id %r" % (ln, rid))
                if rid in ids:
                    problems.append("line %d: duplicate id %r" % (ln, rid))
                ids.add(rid)
                if not (r.get("title") or "").strip():
                    problems.append("line %d: empty title" % ln)
                if not (r.get("topic") or "").strip():
                    problems.append("line %d: empty topic" % ln)
                if "link" in r and not is_http(r["link"]):
                    problems.append("line %d: non-http link %r" % (ln, r["link"]))
                topics[r.get("topic")] = topics.get(r.get("topic"), 0) + 1
        small = {t: c for t, c in topics.items() if c < 2}
        print("%s: %d lines, %d unique ids, %d topics, %d problems"
              % (path, n, len(ids), len(topics), len(problems)))
        for p in problems:
            print("  " + p)
        for t, c in small.items():
            print("  topic with < 2 papers: %r (%d)" % (t, c))
        if problems:
            status = 1
    return status


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("convert")
    c.add_argument("--profile", default="generic", choices=sorted(PROFILES))
    c.add_argument("input")
    c.add_argument("output")
    v = sub.add_parser("validate")
    v.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    return cmd_convert(args) if args.cmd == "convert" else cmd_validate(args)


if __name__ == "__main__":
    sys.exit(main())
