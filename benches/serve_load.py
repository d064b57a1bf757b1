#!/usr/bin/env python3
"""Load `recommend serve` over loopback and report latency, throughput and memory.

Usage (from the repository root, after `cargo build --release`):
    python3 benches/serve_load.py [--index index.bin] [--seconds 30] [--clients 32]

Starts the release binary on a free port, waits for the model, then, same run:
  1. sequential warm requests, one client: /api/search (zh and en queries, hybrid) and
     /api/like, p50/p99 of the whole HTTP round trip;
  2. N concurrent keep-alive clients for S seconds, a mix of like and search: requests/s and
     the number of errors (any non-200 or failed connection);
  3. the server's resident memory after start-up (model loaded, one query), after the
     sequential phase (every lazily built cache exists by then) and after the run.
Prints the load average at start. Standard library only.
"""
import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

SEARCHES = ["用强化学习训练网页智能体", "reward model for web agents", "多智能体 辩论",
            "world model planning 世界模型", "GRPO 的改进", "step-level reward for GUI agents"]
LIKES = ["GRPO", "WebAgent-R1", "Search-R1", "DAPO", "PPO", "DeepSeek-R1"]


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def target(kind, i):
    if kind == "search":
        return "/api/search?" + urllib.parse.urlencode({"q": SEARCHES[i % len(SEARCHES)], "k": 10})
    return "/api/like?" + urllib.parse.urlencode({"title": LIKES[i % len(LIKES)], "k": 10})


def timed(conn, path):
    t = time.perf_counter()
    conn.request("GET", path)
    r = conn.getresponse()
    r.read()
    return r.status, (time.perf_counter() - t) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", default="index.bin")
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--bin", default=os.environ.get("BIN", "target/release/recommend"))
    a = ap.parse_args()
    print("load average at start:", open("/proc/loadavg").read().strip())
    srv = subprocess.Popen([a.bin, "serve", "--addr", "127.0.0.1:0", "--index", a.index],
                           stderr=subprocess.PIPE, text=True)
    line = srv.stderr.readline()
    m = re.search(r"http://([\d.]+):(\d+)/", line)
    if not m:
        sys.exit(f"no address in: {line}")
    threading.Thread(target=lambda: srv.stderr.read(), daemon=True).start()
    host, port = m.group(1), int(m.group(2))
    try:
        c = http.client.HTTPConnection(host, port, timeout=60)
        while True:
            c.request("GET", "/healthz")
            h = json.loads(c.getresponse().read())
            if h["model"] == "ready":
                break
            if h["model"] == "unavailable":
                sys.exit(f"model unavailable: {h['model_error']}")
            time.sleep(0.1)
        timed(c, target("search", 0))
        rss_start = rss_mib(srv.pid)
        for kind, n in [("search", 200), ("like", 500)]:
            lat = []
            for i in range(n):
                status, ms = timed(c, target(kind, i))
                assert status == 200, (kind, status)
                lat.append(ms)
            print(f"{kind}: one client, {n} requests: p50 {statistics.median(lat):.2f} ms, "
                  f"p99 {pct(lat, 99):.2f} ms, max {max(lat):.2f} ms")
        # Every lazily built cache exists after the first queries: memory settles here.
        rss_warm = rss_mib(srv.pid)

        stop = time.time() + a.seconds
        counts = [0] * a.clients
        errors = [0] * a.clients
        lat_all = [[] for _ in range(a.clients)]

        def client(j):
            conn = http.client.HTTPConnection(host, port, timeout=60)
            i = j
            while time.time() < stop:
                kind = "search" if i % 2 else "like"
                try:
                    status, ms = timed(conn, target(kind, i))
                    if status != 200:
                        errors[j] += 1
                    counts[j] += 1
                    lat_all[j].append(ms)
                except Exception:
                    errors[j] += 1
                    conn = http.client.HTTPConnection(host, port, timeout=60)
                i += 1

        t0 = time.time()
        threads = [threading.Thread(target=client, args=(j,)) for j in range(a.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.time() - t0
        lat = [x for l in lat_all for x in l]
        print(f"{a.clients} concurrent clients for {took:.1f} s (like/search mix): "
              f"{sum(counts)} requests, {sum(counts) / took:.1f} req/s, {sum(errors)} errors, "
              f"p50 {statistics.median(lat):.1f} ms, p99 {pct(lat, 99):.1f} ms")
        rss_end = rss_mib(srv.pid)
        print(f"server RSS: {rss_start:.0f} MiB after start and one query, {rss_warm:.0f} MiB "
              f"after the sequential warm-up, {rss_end:.0f} MiB after the concurrent run "
              f"({(rss_end / rss_warm - 1) * 100:+.1f}% vs warm-up)")
    finally:
        srv.terminate()
        srv.wait(timeout=20)
        print("server exit status after SIGTERM:", srv.returncode)


if __name__ == "__main__":
    main()
