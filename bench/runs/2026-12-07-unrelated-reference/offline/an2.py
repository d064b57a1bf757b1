import sys,glob
def pct(v,p):
    v=sorted(v); return v[min(len(v)-1,int(round(p*(len(v)-1))))]
stat=sys.argv[1]
def val(r):
    b,med,p90=float(r[2]),float(r[4]),float(r[5])
    return {'best':b,'med':b-med,'p90':b-p90}[stat]
tot={}
for f in sorted(glob.glob('/tmp/wk/*.tsv')):
    rows=[l.split('\t') for l in open(f).read().split('\n') if l]
    line=[]
    for P in [0.8,0.85,0.9,0.95]:
        jf=ja=of=on=0
        for lang in (['en','zh'] if len(sys.argv)<3 else ['all']):
            L=lambda r: lang=='all' or ((r[1]=='zh')==(lang=='zh'))
            bg=[val(r) for r in rows if r[0]=='bg' and L(r)]
            cut=pct(bg,P)
            j=[(val(r),r[3]=='1') for r in rows if r[0]=='judged' and L(r)]
            off=[val(r) for r in rows if r[0]=='off' and L(r)]
            jf+=sum(1 for c,a in j if c<=cut and a); ja+=sum(1 for c,a in j if a)
            of+=sum(1 for c in off if c<=cut); on+=len(off)
        line.append(f"P{P}: {jf}/{ja} off {of}/{on}")
    print(f"{f.split('/')[-1][:38]:40s}", " ; ".join(line))
