import glob,sys
# columns: 0 tag 1 held 2 lang 3 short 4 best 5 rel 6 nb 7 un 8 us 9 weak 10 query
def flags(r, rule):
    h=int(r[1]); held=h&1==1; named=h&2==2; short=r[3]=='1'; nb,un,us=float(r[6]),float(r[7]),float(r[8])
    old = (nb>=0 and nb<0.10) or (un>=0 and un<0.80)
    new = (us<0.80) if (short and us>=0) else old
    both = old or (short and us>=0 and us<0.80)
    return {'old':old,'new':new,'old+held':old and not held,'new+held':new and not held,'both+held':both and not held,'both+held+named':both and not held and not named,'old+held+named':old and not held and not named}[rule]
RULES=['old','new','old+held','new+held','both+held','both+held+named','old+held+named']
tot={}
for f in sorted(glob.glob('bench/runs/2026-12-07-short-queries/offline/*.tsv')):
    rows=[l.rstrip('\n').split('\t') for l in open(f) if l.strip()]
    n=f.split('/')[-1][:-4]; out=[]
    for rule in RULES:
        c={}
        for r in rows:
            t=r[0]; a=c.setdefault(t,[0,0,0]); a[0]+=1; fl=flags(r,rule); a[1]+=fl; a[2]+= fl and r[5]=='1'
        out.append(f"{rule:10s}: "+' '.join(f"{t} {v[1]}/{v[0]}" + (f"(ans {v[2]})" if t in('judged','infield') else '') for t,v in c.items()))
        for t,v in c.items():
            T=tot.setdefault((rule,t),[0,0,0]); T[0]+=v[0];T[1]+=v[1];T[2]+=v[2]
    print(n); [print('   ',o) for o in out]
for rule in RULES: print(rule, {t:tot[(rule,t)] for t in ['judged','off','offshort','infield']})
