import json,glob,os,sys,random
A,B=sys.argv[1],sys.argv[2]
pool={}
for f in sorted(glob.glob(f'{B}/*.json')):
    n=os.path.basename(f); a=json.load(open(f'{A}/{n}')); b=json.load(open(f))
    fa,fb=a.get('feed'),b.get('feed')
    if not fa: print(n,'no feed'); continue
    out=[]
    for key in ['systems','rated']:
        for sa,sb in zip(fa[key],fb[key]):
            if sa['name'].startswith('ours') :
                out.append(f"{sa['name'][:22]}: {sa['precision_at_10']:.3f}->{sb['precision_at_10']:.3f}")
                pool.setdefault(sa['name'],([],[]))
                pool[sa['name']][0].extend(sa['per_reader']); pool[sa['name']][1].extend(sb['per_reader'])
    print(n[:40], '|', ' | '.join(out))
print()
for k,(x,y) in pool.items():
    d=[b-a for a,b in zip(x,y)]
    random.seed(1); bs=[]
    for _ in range(2000):
        s=[random.choice(d) for _ in d]; bs.append(sum(s)/len(s))
    bs.sort()
    print(f"{k[:50]:50s} n={len(d)} {sum(x)/len(x):.3f}->{sum(y)/len(y):.3f} diff {sum(d)/len(d):+.3f} [{bs[50]:+.3f},{bs[1950]:+.3f}]")
