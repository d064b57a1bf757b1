# make_listing.py N OUT: an arXiv API answer (Atom) of N entries, ids 2301.00001.., as a saved
# week of listings looks to `recommend feed FILE`.
import sys
n, out = int(sys.argv[1]), sys.argv[2]
head = ('<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom">\n  <title>arXiv Query</title>\n'
        '  <id>http://arxiv.org/api/x</id>\n  <updated>2026-12-02T00:00:00Z</updated>\n'
        f'  <opensearch:totalResults>{n}</opensearch:totalResults>\n')
entry = ('  <entry>\n    <id>http://arxiv.org/abs/2301.{i:05d}v1</id>\n'
         '    <updated>2026-12-02T09:41:57Z</updated>\n    <published>2026-12-02T09:41:57Z</published>\n'
         '    <title>Some other title {i}</title>\n    <summary>A summary of paper {i} about agents.</summary>\n'
         '    <author><name>Some One</name></author>\n'
         '    <link href="http://arxiv.org/abs/2301.{i:05d}v1" rel="alternate" type="text/html"/>\n'
         '    <arxiv:primary_category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>\n'
         '    <category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>\n  </entry>\n')
with open(out, 'w') as f:
    f.write(head + ''.join(entry.format(i=i) for i in range(1, n + 1)) + '</feed>\n')
