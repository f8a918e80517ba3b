"""What the interop scripts share: hashing decoded frames, an aiortc peer's decode loop and stdio exchange, HTTP
helpers (a free port, waiting for a server, requests with a bearer token, a page server in a thread), and headless
Chromium (launch, stop, reading getStats() in a page, the DevTools protocol over a pipe for screenshots, and reading
the PNG it returns).

Imported by the scripts beside it (Python puts a script's own directory first on sys.path, whatever the working
directory or network namespace it runs in) and by Tests/Benchmarks/whep/whep_bench.py (which adds this directory).
The Chromium scripts run with the system python3: importing this module needs only the standard library; the aiortc
helpers import aiortc when they are called.
"""
import argparse
import asyncio
import base64
import fcntl
import hashlib
import http.server
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zlib


# MARK: Decoded frames

def frame_md5(frame) -> str:
    """MD5 of a frame's yuv420p planes, row by row without the line padding (as ffmpeg's framemd5 hashes them)."""
    if frame.format.name != "yuv420p":
        frame = frame.reformat(format="yuv420p")
    digest = hashlib.md5()
    for plane in frame.planes:
        data = bytes(plane)
        for row in range(plane.height):
            digest.update(data[row * plane.line_size: row * plane.line_size + plane.width])
    return digest.hexdigest()


def count_frame(stats: dict, frame) -> None:
    """Counts a decoded frame in `stats` ("frames") and records its size ("width", "height")."""
    stats["frames"] += 1
    stats["width"], stats["height"] = frame.width, frame.height


# MARK: aiortc

def on_decoded_frames(pc, on_frame) -> None:
    """Calls `on_frame(frame)` for every frame aiortc (PyAV) decodes on each track `pc` receives, until it ends."""

    @pc.on("track")
    def on_track(track):
        async def consume():
            while True:
                try:
                    frame = await track.recv()
                except Exception:
                    return
                on_frame(frame)

        asyncio.ensure_future(consume())


def session_description(sdp: str, kind: str):
    """An aiortc RTCSessionDescription ("offer" or "answer")."""
    from aiortc import RTCSessionDescription
    return RTCSessionDescription(sdp=sdp, type=kind)


def frames_and_timeout_arguments() -> argparse.Namespace:
    """--frames (decoded frames to wait for, 60) and --timeout (seconds, 20): the stdio peers' arguments."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--timeout", type=float, default=20.0)
    return parser.parse_args()


def write_line(obj) -> None:
    """One JSON object on one stdout line, flushed (the stdio protocol of the Swift tests)."""
    print(json.dumps(obj), flush=True)


async def read_line() -> dict:
    """The next JSON object on stdin, read off the event loop."""
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    return json.loads(line)


async def wait_at_most(event: asyncio.Event, seconds: float) -> None:
    """Waits for `event`, or `seconds`, whichever comes first."""
    try:
        await asyncio.wait_for(event.wait(), seconds)
    except asyncio.TimeoutError:
        pass


async def report_and_close(pc, stats: dict) -> None:
    """Writes `stats` with the peer connection's ICE and connection states, then closes it."""
    stats["ice"] = pc.iceConnectionState
    stats["connection"] = pc.connectionState
    write_line(stats)
    await pc.close()


# MARK: HTTP

def first_external_ipv4(run_inside: str) -> str:
    """The first non-loopback IPv4 address; exits naming `run_inside` (the script that makes a namespace) if none."""
    out = subprocess.run(["ip", "-4", "-o", "addr", "show", "scope", "global"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        return line.split()[3].split("/")[0]
    sys.exit(f"no non-loopback IPv4 interface (run inside {run_inside})")


def free_port(host: str) -> int:
    """A TCP port free on `host` a moment ago."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def get_when_listening(url: str, process=None, seconds: float = 15):
    """GETs `url` until it answers, every 0.2 s for up to `seconds` (sooner if `process` exited): (status, text), or
    None when it never answered."""
    deadline = time.time() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.status, response.read().decode()
        except OSError:
            if time.time() > deadline or (process is not None and process.poll() is not None):
                return None
            time.sleep(0.2)


def request(method: str, url: str, token: str, body=None, content_type=None):
    """One HTTP request with a bearer token: (status, headers, text), HTTP errors included."""
    headers = {"Authorization": f"Bearer {token}"}
    if content_type:
        headers["Content-Type"] = content_type
    req = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def json_call(url: str, body=None, timeout: float = 35):
    """GET `url` (no body) or POST `body` as JSON; the reply's JSON."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"},
                                 method="GET" if body is None else "POST")
    with urllib.request.urlopen(req, timeout=timeout) as reply:
        return json.loads(reply.read())


class QuietHandler(http.server.BaseHTTPRequestHandler):
    """A request handler that logs nothing, with helpers to read the body and to reply."""

    def log_message(self, *_):
        pass

    def body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def reply(self, body: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve_in_thread(handler, host: str = "127.0.0.1") -> http.server.ThreadingHTTPServer:
    """An HTTP server on a free port of `host`, serving on a daemon thread; `shutdown()` it when done."""
    server_class = http.server.ThreadingHTTPServer
    if ":" in host:  # an IPv6 literal
        server_class = type("ThreadingHTTPServer6", (http.server.ThreadingHTTPServer,), {"address_family": socket.AF_INET6})
    server = server_class((host, 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# MARK: Chromium

CHROMIUM_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--autoplay-policy=no-user-gesture-required"]

# A page's reading of RTCPeerConnection.getStats(): the inbound video RTP entry, its codec, and the transport.
VIDEO_STATS_JS = """
function videoStats(stats) {
  const out = {inbound: null, codec: null, transport: null};
  stats.forEach((s) => {
    if (s.type === "inbound-rtp" && s.kind === "video") {
      out.inbound = s;
      out.codec = (s.codecId && stats.get(s.codecId)) || null;
    }
    if (s.type === "transport") out.transport = s;
  });
  return out;
}
"""


def render_page(template: str, **values) -> str:
    """A page template filled with `values`; `%(video_stats)s` in it becomes VIDEO_STATS_JS."""
    return template % dict(values, video_stats=VIDEO_STATS_JS)


def launch_chromium(url: str, profile: str, extra=(), binary: str = "chromium") -> subprocess.Popen:
    """Headless Chromium opening `url` with the profile directory `profile` (output discarded)."""
    return subprocess.Popen([binary] + CHROMIUM_FLAGS + list(extra) + [f"--user-data-dir={profile}", url],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_process(process: subprocess.Popen, seconds: float = 5) -> None:
    """SIGTERM, then SIGKILL if `process` has not exited within `seconds`."""
    process.terminate()
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        process.kill()



def chromium_page_against_serve(serve_command, serve_err_path: str, serve_url: str, page: bytes, host: str,
                                workdir: str, profile_prefix: str, timeout: float) -> dict:
    """Starts `rtc-h264 serve` (`serve_command`, its stderr to `serve_err_path`), waits until `serve_url` answers,
    serves `page` on `host` to a headless Chromium and waits up to `timeout` s for the page to POST its JSON result;
    then stops Chromium and serve (SIGINT, killed after 20 s). Returns the page's result, or {"error": ...}."""
    serve = subprocess.Popen(serve_command, stdout=subprocess.DEVNULL, stderr=open(serve_err_path, "w"))
    result = {}
    done = threading.Event()

    class Handler(QuietHandler):
        def do_GET(self):
            self.reply(page, "text/html")

        def do_POST(self):
            result.update(json.loads(self.body() or b"{}"))
            done.set()
            self.reply(b"ok", "text/plain")

    pages = serve_in_thread(Handler, host)
    browser = None
    try:
        if get_when_listening(serve_url, serve) is None:
            return {"error": "serve did not listen"}
        profile = tempfile.mkdtemp(prefix=profile_prefix, dir=workdir)
        browser = launch_chromium(f"http://{url_host(host)}:{pages.server_address[1]}/", profile)
        if not done.wait(timeout):
            return {"error": "no result from the page"}
    finally:
        if browser:
            stop_process(browser)
        serve.send_signal(signal.SIGINT)
        try:
            serve.wait(20)
        except subprocess.TimeoutExpired:
            serve.kill()
        pages.shutdown()
    return result

class DevToolsPipe:
    """Headless Chromium opening `url`, driven through the DevTools protocol over `--remote-debugging-pipe`: Chromium
    reads commands from its descriptor 3 and writes replies and events to its descriptor 4, each message one JSON
    object followed by a NUL byte. `page()` attaches to the page (`Target.attachToTarget` with `flatten`), after which
    `call(method, params, session)` speaks to it. Standard library only."""

    def __init__(self, url: str, profile: str, extra=(), binary: str = "chromium"):
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()
        # bash (not sh: dash refuses descriptors above 9) moves Chromium's pipe ends to 3 and 4, then becomes Chromium;
        # they are first moved to 10 or above here, where they cannot be 3 or 4 already.
        commands_read, replies_write = (self._above_nine(commands_read), self._above_nine(replies_write))
        move = f'exec 3<&{commands_read} 4>&{replies_write} {commands_read}<&- {replies_write}>&-; exec "$0" "$@"'
        self.process = subprocess.Popen(
            ["bash", "-c", move, binary] + CHROMIUM_FLAGS + list(extra)
            + ["--remote-debugging-pipe", f"--user-data-dir={profile}", url],
            pass_fds=(commands_read, replies_write), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(commands_read)
        os.close(replies_write)
        self._next_id = 0
        self._pending = b""

    @staticmethod
    def _above_nine(descriptor: int) -> int:
        moved = fcntl.fcntl(descriptor, fcntl.F_DUPFD, 10)
        os.close(descriptor)
        return moved

    def call(self, method: str, params=None, session=None, timeout: float = 10) -> dict:
        """Sends one command and returns its `result`; raises RuntimeError naming the method on an error reply, a
        timeout or Chromium closing the pipe. Events read meanwhile are dropped."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            while b"\0" in self._pending:
                raw, self._pending = self._pending.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") != self._next_id:
                    continue
                if "error" in reply:
                    raise RuntimeError(f"DevTools {method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            left = deadline - time.time()
            if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                raise RuntimeError(f"DevTools {method}: no reply within {timeout} s")
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise RuntimeError(f"DevTools {method}: Chromium closed the pipe")
            self._pending += chunk

    def page(self, timeout: float = 10) -> str:
        """The session id of the first page target, once there is one."""
        deadline = time.time() + timeout
        while True:
            pages = [t for t in self.call("Target.getTargets")["targetInfos"] if t.get("type") == "page"]
            if pages:
                attached = self.call("Target.attachToTarget", {"targetId": pages[0]["targetId"], "flatten": True})
                return attached["sessionId"]
            if time.time() > deadline:
                raise RuntimeError(f"DevTools: no page target within {timeout} s")
            time.sleep(0.1)

    def evaluate(self, expression: str, session: str):
        """The value of a JavaScript expression in the page (`Runtime.evaluate`, by value)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
        if "exceptionDetails" in result:
            raise RuntimeError(f"DevTools evaluate: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def screenshot(self, session: str) -> bytes:
        """The page's viewport as PNG bytes (`Page.captureScreenshot`)."""
        return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"}, session)["data"])

    def close(self) -> None:
        os.close(self._commands)
        os.close(self._replies)
        stop_process(self.process)


def png_size(data: bytes):
    """(width, height) from a PNG's IHDR chunk, which must come first; raises ValueError for anything else."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG (no signature or no IHDR first)")
    return struct.unpack(">II", data[16:24])


def read_png(data: bytes):
    """(width, height, rows) of an 8-bit RGB or RGBA PNG, `rows` a list of bytes objects of 3 or 4 bytes a pixel,
    filters undone (PNG spec section 9). Raises ValueError for anything else."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG (no signature)")
    offset, header, idat = 8, None, []
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        chunk = data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat.append(chunk)
        elif kind == b"IEND":
            break
        offset += 12 + length
    if header is None:
        raise ValueError("PNG without IHDR")
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"PNG bit depth {depth}, colour type {color}, interlace {interlace}: not 8-bit RGB(A)")
    step = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * step
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(step, stride):
                row[i] = (row[i] + row[i - step]) & 0xFF
        elif kind == 2:
            row = bytearray((a + b) & 0xFF for a, b in zip(row, previous))
        elif kind == 3:
            for i in range(stride):
                row[i] = (row[i] + ((row[i - step] if i >= step else 0) + previous[i]) // 2) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = row[i - step] if i >= step else 0
                b, c = previous[i], previous[i - step] if i >= step else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        elif kind != 0:
            raise ValueError(f"PNG row {y} has filter type {kind}")
        rows.append(bytes(row))
        previous = row
    return width, height, rows


def url_host(host: str) -> str:
    """`host` as a URL's authority writes it: an IPv6 literal in brackets."""
    return f"[{host}]" if ":" in host else host
