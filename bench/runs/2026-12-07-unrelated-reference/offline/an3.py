import glob
for f in sorted(glob.glob('/tmp/wk/*.tsv')):
    rows=[l.split('\t') for l in open(f).read().split('\n') if l]
    res=[]
    for lang in ['en','zh']:
        L=lambda r:(r[1]=='zh')==(lang=='zh')
        j=sorted(float(r[2]) for r in rows if r[0]=='judged' and r[3]=='1' and L(r))
        off=[float(r[2]) for r in rows if r[0]=='off' and L(r)]
        bg=sorted(float(r[2]) for r in rows if r[0]=='bg' and L(r))
        cut=j[int(len(j)*0.1)] if j else 0  # oracle: 10% of answered below
        res.append(f"{lang}: oracle off {sum(c<cut for c in off)}/{len(off)} | med j {j[len(j)//2]:.3f} off {sorted(off)[len(off)//2]:.3f} bg {bg[len(bg)//2]:.3f}")
    print(f"{f.split('/')[-1][:38]:40s}", ' ; '.join(res))
