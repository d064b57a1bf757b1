import sys,glob
def pct(v,p):
    v=sorted(v); return v[min(len(v)-1,int(round(p*(len(v)-1))))]
for f in sorted(glob.glob('/tmp/wk/*.tsv')):
    rows=[l.split('\t') for l in open(f).read().split('\n') if l]
    out=[]
    for lang in ['en','zh']:
        bg=[float(r[2]) for r in rows if r[0]=='bg' and r[1]==lang]
        j=[(float(r[2]),r[3]=='1') for r in rows if r[0]=='judged' and r[1]!=('zh' if lang=='en' else 'en')]
        j=[(float(r[2]),r[3]=='1') for r in rows if r[0]=='judged' and ((r[1]=='zh')==(lang=='zh'))]
        off=[float(r[2]) for r in rows if r[0]=='off' and r[1]==lang]
        s=[]
        for P in [0.8,0.9,0.95,1.0]:
            cut=pct(bg,P) if P<1 else max(bg)
            jf=sum(1 for c,a in j if c<=cut and a); ja=sum(1 for c,a in j if a)
            of=sum(1 for c in off if c<=cut)
            s.append(f"P{P}: judged-ans {jf}/{ja} off {of}/{len(off)}")
        out.append(f"{lang} bgmed {pct(bg,.5):.3f} | "+" ; ".join(s))
    print(f.split('/')[-1]); [print('   ',o) for o in out]
