# Pooled paired bootstrap over readers of several lists (python, numpy-free; seed fixed).
import json,glob,sys,random
d=sys.argv[1]; include_credit=len(sys.argv)>2
lists=[]; rows={}
for f in sorted(glob.glob(d+'/*.json')):
    n=f.split('/')[-1][:-5]
    if 'Credit' in n and not include_credit: continue
    fe=json.load(open(f)).get('feed')
    if not fe: continue
    lists.append((n,fe['readers']))
    for s in fe['rated']: rows.setdefault(s['name'],[]).extend(s['per_reader'])
names=list(rows); base=rows[names[0]]; n=len(base)
print('lists',lists,'readers',n)
rng=random.Random(7)
for name in names:
    v=rows[name]; diffs=[b-a for a,b in zip(base,v)]  # learner minus no ratings
    m=sum(diffs)/n
    means=sorted(sum(diffs[rng.randrange(n)] for _ in range(n))/n for _ in range(10000))
    print('%-58s p@10 %.3f  gain %+.3f [%+.3f, %+.3f]'%(name[:58],sum(v)/n,m,means[250],means[9750]))
