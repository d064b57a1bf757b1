# pool.py OUT: related@5 of ours, fetched minus plain, per list and pooled over every seed
# (paired bootstrap 95%, 4,000 resamples), from the per-seed figures of each bench JSON.
import json, glob, os, random, sys
d = sys.argv[1]
rng = random.Random(7)
def ours(f):
    like = json.load(open(f))['judged']['like']
    return next(x for x in like if x['system'].startswith('ours'))['per_seed']
def interval(diffs):
    n = len(diffs)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(4000))
    return sum(diffs) / n, means[100], means[3900]
pooled = {'fetched': [], 'whole': []}
for f in sorted(glob.glob(d + '/*-plain.json')):
    name = os.path.basename(f)[:-len('-plain.json')]
    plain = ours(f)
    for form in pooled:
        other = ours(f.replace('-plain.json', '-%s.json' % form))
        diffs = [b - a for a, b in zip(plain, other)]
        pooled[form].extend(diffs)
        print('%-38s %-7s %+.3f [%+.3f, %+.3f] over %d seeds' % ((name, form) + interval(diffs) + (len(diffs),)))
for form, diffs in pooled.items():
    print('%-38s %-7s %+.3f [%+.3f, %+.3f] over %d seeds' % (('pooled', form) + interval(diffs) + (len(diffs),)))
