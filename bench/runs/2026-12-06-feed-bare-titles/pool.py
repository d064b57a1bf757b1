# pool.py DIR: per-list feed p@10 of every system; pooled ours-minus-baseline over readers
# (bootstrap), split into described lists and bare-title lists (AARP + t-*).
import json,glob,sys,random,os
d=sys.argv[1]
pools={"titles":{}, "described":{}}
for f in sorted(glob.glob(d+'/*.json')):
    n=os.path.basename(f)[:-5]
    try: fe=json.load(open(f)).get('feed')
    except Exception as e: print(n,'ERR',e); continue
    if not fe: print(n,'no feed'); continue
    print('%-40s readers %2d  '%(n,fe['readers'])+'  '.join('%.3f'%s['precision_at_10'] for s in fe['systems']))
    g="titles" if (n.startswith('t-') or n=='Awesome-Agent-RL-Papers') else "described"
    for s in fe['systems']: pools[g].setdefault(s['name'],[]).extend(s['per_reader'])
rng=random.Random(7)
for g,rows in pools.items():
    names=list(rows)
    if not names: continue
    base=rows[names[0]]; n=len(base)
    print('==',g,n,'readers')
    for name in names:
        v=rows[name]; diffs=[a-b for a,b in zip(base,v)]
        m=sum(diffs)/n
        means=sorted(sum(diffs[rng.randrange(n)] for _ in range(n))/n for _ in range(4000))
        print('  %-50s p@10 %.3f  ours-minus %+.3f [%+.3f, %+.3f]'%(name[:50],sum(v)/n,m,means[100],means[3900]))
