import json,glob,os,sys,random
A,B=sys.argv[1],sys.argv[2]
pool={}
def get(d):
    j=d.get('judged') or {}
    like={x['system']:x for x in j.get('like',[])}
    o=like.get('ours (hybrid)',{})
    p=j.get('paths') or {}
    s=[x for x in (j.get('search') or []) if x['system'].startswith('ours')]
    mrr=sum(x['mrr']*x['queries'] for x in s)/max(1,sum(x['queries'] for x in s))
    return o, p, mrr, (d.get('clusters') or {}).get('results',[{}])[0].get('nmi')
for f in sorted(glob.glob(f'{A}/*.json')):
    n=os.path.basename(f)
    a=json.load(open(f)); b=json.load(open(f'{B}/{n}'))
    oa,pa,ma,na=get(a); ob,pb,mb,nb=get(b)
    d=[y-x for x,y in zip(oa['per_seed'],ob['per_seed'])]
    pool.setdefault('all',[]).extend(d)
    key='mixed' if ('.half' in n or '.third' in n) else 'whole'
    pool.setdefault(key,[]).extend(d)
    print(f"{n[:44]:44s} r5 {oa['related_at_5']:.3f}->{ob['related_at_5']:.3f} abs {oa['absurd_at_5']:.3f}->{ob['absurd_at_5']:.3f} rec {pa.get('recall',0):.2f}->{pb.get('recall',0):.2f} mrr {ma:.3f}->{mb:.3f} nmi {na or 0:.3f}->{nb or 0:.3f}")
for k,d in pool.items():
    random.seed(1); bs=sorted(sum(random.choice(d) for _ in d)/len(d) for _ in range(2000))
    print(f"{k}: n={len(d)} mean {sum(d)/len(d):+.4f} [{bs[50]:+.4f},{bs[1950]:+.4f}]")
