# fake_arxiv.py PORT ABSTRACTS.jsonl...: answers the arXiv API's `id_list` queries in its Atom
# format from the summaries of the bench's "with abstracts" lists (written from each paper's
# arXiv abstract), so `recommend index --abstracts` can be measured offline. Logs each request.
import html, json, sys, urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer

papers = {}
for f in sys.argv[2:]:
    for line in open(f, encoding="utf-8"):
        r = json.loads(line)
        if r.get("arxiv") and r.get("summary"):
            papers[r["arxiv"]] = r

class H(BaseHTTPRequestHandler):
    def do_GET(self):
        q = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
        ids = [i for i in q.get("id_list", [""])[0].split(",") if i]
        out = ['<?xml version="1.0" encoding="UTF-8"?>',
               '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">',
               '<title>arXiv Query</title>']
        found = [papers[i] for i in ids if i in papers]
        out.append('<opensearch:totalResults>%d</opensearch:totalResults>' % len(found))
        for r in found:
            y = r.get("year", 2025)
            out.append('<entry><id>http://arxiv.org/abs/%sv1</id><published>%s-01-15T00:00:00Z</published>'
                       '<title>%s</title><summary>%s</summary><author><name>A. Author</name></author></entry>'
                       % (r["arxiv"], y, html.escape(r["title"]), html.escape(r["summary"])))
        out.append('</feed>')
        body = "\n".join(out).encode()
        self.send_response(200)
        self.send_header("content-type", "application/atom+xml")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        sys.stderr.write("asked %d ids, answered %d\n" % (len(ids), len(found)))
    def log_message(self, *a): pass

HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
