"""Quantiles of each query's best cosine and peakedness (z of the best among all cosines), and
how many queries fall below the 5th / 10th percentile of the titles-as-queries reference.
Usage: python3 summary.py (reads the *.out files beside it)."""
import glob


def quantiles(v):
    v = sorted(v)
    n = len(v)
    return " ".join("%.2f" % v[int(p * (n - 1))] for p in [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1])


def percentile(v, p):
    v = sorted(v)
    k = (len(v) - 1) * p / 100
    f = int(k)
    c = min(f + 1, len(v) - 1)
    return v[f] + (v[c] - v[f]) * (k - f)


KINDS = ["judged-en", "judged-zh", "judged-mixed", "off"]
for out in sorted(glob.glob("*.out")):
    rows = [x.rstrip("\n").split("\t") for x in open(out)]
    print(out[:-4])
    for kind in ["ref"] + KINDS:
        best = [float(r[1]) for r in rows if r[0] == kind]
        z = [float(r[2]) for r in rows if r[0] == kind]
        print("  %-13s best %s   z %s" % (kind, quantiles(best), quantiles(z)))
    ref = [(float(r[1]), float(r[2])) for r in rows if r[0] == "ref"]
    for col, name in [(0, "best"), (1, "z")]:
        for pct in [5, 10]:
            t = percentile([x[col] for x in ref], pct)
            counts = []
            for kind in KINDS:
                v = [float(r[1 + col]) for r in rows if r[0] == kind]
                counts.append("%s %d/%d" % (kind, sum(1 for x in v if x < t), len(v)))
            print("  below %s p%d (%.3f): %s" % (name, pct, t, " | ".join(counts)))
