# summary.py OUT: related@5 / absurd@5 / path recall of ours and the best baseline per JSON.
import json, glob, os, sys
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    j = json.load(open(f))['judged']; o = j['like']; p = j['paths']
    best = max(o[1:], key=lambda x: x['related_at_5'])
    print('%-36s ours %.3f / %.1f%%  best baseline %s %.3f  paths recall %.2f, %.1f%% related' % (
        os.path.basename(f)[:-5], o[0]['related_at_5'], 100 * o[0]['absurd_at_5'], best['system'],
        best['related_at_5'], p['recall'], 100 * p['related_share']))
    mrr = ' '.join('%s %.3f' % (s['lang'], s['mrr']) for s in j['search'] if s['system'].startswith('ours'))
    fe = json.load(open(f)).get('feed') or {}
    feed = ', '.join('%s %.2f' % (s['name'].split(' (')[0][:22], s['precision_at_10']) for s in fe.get('systems', [])[:4])
    print('%-36s search MRR %s; feed p@10 (%s readers) %s' % ('', mrr, fe.get('readers'), feed))
