#!/usr/bin/env python3
"""The janus-chromium scenario's web server: serves viewer.html and collects what the viewer pages report.

GET /viewer.html      the viewer page (from this script's folder)
POST /report          one JSON object from a page (getStats() inbound-rtp and the page's own timings); appended,
                      with the server's receive time as "rx", to the JSON lines file given by --out.
Nothing else is served. Bound to the server namespace's veth address, so only the scenario's own browser reaches it.
"""
import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_REPORT_BYTES = 64 * 1024


class Handler(BaseHTTPRequestHandler):
    out = None
    lock = threading.Lock()

    def log_message(self, *_):
        pass                                 # quiet: the reports are the log

    def send_body(self, status, body, kind):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.split("?", 1)[0] != "/viewer.html":
            self.send_body(404, b"not found\n", "text/plain")
            return
        with open(os.path.join(HERE, "viewer.html"), "rb") as f:
            self.send_body(200, f.read(), "text/html; charset=utf-8")

    def do_POST(self):
        if self.path != "/report":
            self.send_body(404, b"not found\n", "text/plain")
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length <= 0 or length > MAX_REPORT_BYTES:
            self.send_body(400, b"bad length\n", "text/plain")
            return
        try:
            record = json.loads(self.rfile.read(length))
        except ValueError:
            self.send_body(400, b"not JSON\n", "text/plain")
            return
        if not isinstance(record, dict):
            self.send_body(400, b"not an object\n", "text/plain")
            return
        record["rx"] = time.time()
        with Handler.lock:
            Handler.out.write(json.dumps(record, separators=(",", ":")) + "\n")
            Handler.out.flush()
        self.send_body(204, b"", "text/plain")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    Handler.out = open(args.out, "a")
    server = ThreadingHTTPServer((args.listen, args.port), Handler)
    server.daemon_threads = True
    print(f"collector listening on {args.listen}:{args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
