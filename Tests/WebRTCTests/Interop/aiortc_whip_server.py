"""A WHIP endpoint (RFC 9725) over HTTP/1.1 (HTTPS with --tls-cert/--tls-key) built on aiortc: `rtc-h264 send --whip` publishes to it.
With --whep it is a WHEP endpoint instead (POST /whep, DELETE /whep/resource/<id>): aiortc answers the player's
recvonly offer with a sendonly 320x240 H.264 track (libx264 through PyAV, aiortc's own packetizer, RTX, DTLS role of
its choosing), a moving pattern at 30 fps; `rtc-h264 receive --whep` plays it. The report then has "sent" (frames
handed to the encoder), "offer_recvonly", the answer's "answer_setup" and "answer_codecs" (a=rtpmap lines).

  POST   /whip                  an SDP offer (Content-Type: application/sdp) -> 201, Location (relative), the answer
                                (with --redirect the first POST gets 307 to /whip/endpoint; with --token a missing or
                                wrong `Authorization: Bearer` gets 401)
  DELETE /whip/resource/<id>    ends the session -> 200; the server then writes its report and exits
  (with --close-after N the endpoint closes its PeerConnection after N decoded frames: DTLS close_notify mid-stream;
   with --link VALUE, repeatable, the 201 carries `Link: VALUE` headers: the ICE servers of RFC 9725 section 4.6)

Every decoded frame is hashed (MD5 of its yuv420p planes, as PyAV hands them out) so that the caller can compare
them with a decode of the bitstream the sender wrote (`--save-annexb`). The report (--report, JSON):
  {"frames": N, "md5": [...], "width": W, "height": H, "deleted": bool, "ice": "...", "unauthorized": K,
   "redirected": K, "posts": K, "offer_sendonly": bool, "offer_actpass": bool, "offer_candidates": [addresses],
   "offer_candidate_lines": [...], "nominated": {"host", "port", "type"} (the remote end of the pair aioice nominated),
   "trickled": ["address port typ type", ...] (with --trickle), "first_frame_ms": the offer's arrival to the first decoded frame, "answer_ms": of which the endpoint's own answer}
Exits after the DELETE, or after --timeout seconds.
"""
import argparse
import asyncio
import json
import ssl
import time
import uuid

import fractions

import av
from aiortc import RTCConfiguration, RTCPeerConnection, VideoStreamTrack
from aiortc.sdp import candidate_from_sdp

from interop_common import count_frame, frame_md5, on_decoded_frames, session_description, wait_at_most


class PatternTrack(VideoStreamTrack):
    """320x240 frames at 30 fps: a luma ramp that moves one step a frame, flat chroma."""

    def __init__(self, stats):
        super().__init__()
        self.stats = stats
        self.index = 0

    async def recv(self):
        pts, time_base = await self.next_timestamp()
        frame = av.VideoFrame(320, 240, "yuv420p")
        shift = self.index % 256
        row = bytes((x + shift) % 256 for x in range(320))
        for number, plane in enumerate(frame.planes):
            if number == 0:
                data = b"".join(row + bytes(plane.line_size - 320) for _ in range(240))
            else:
                data = bytes([128]) * (plane.line_size * 120)
            plane.update(data)
        frame.pts, frame.time_base = pts, time_base or fractions.Fraction(1, 90000)
        self.index += 1
        self.stats["sent"] = self.index
        return frame


class Endpoint:
    def __init__(self, args):
        self.args = args
        self.pc = None
        self.resource = None
        self.stats = {"frames": 0, "md5": [], "width": 0, "height": 0, "deleted": False, "ice": "new",
                      "unauthorized": 0, "redirected": 0, "posts": 0, "offer_sendonly": False,
                      "offer_actpass": False, "offer_candidates": []}
        self.done = asyncio.Event()
        self.posted_at = None
        self.base = "/whep" if args.whep else "/whip"

    def on_frame(self, frame):
        self.stats["md5"].append(frame_md5(frame))
        count_frame(self.stats, frame)
        if self.stats["frames"] == 1 and self.posted_at is not None:
            self.stats["first_frame_ms"] = round((time.monotonic() - self.posted_at) * 1000, 1)
            self.stats["answer_ms"] = round((self.answered_at - self.posted_at) * 1000, 1)
        if self.args.close_after and self.stats["frames"] == self.args.close_after:
            # The endpoint goes away mid-stream (DTLS close_notify): the publisher must stop with a clear error.
            self.stats["closed_by_endpoint"] = True
            asyncio.ensure_future(self.pc.close())

    async def post(self, target, headers, body):
        self.stats["posts"] += 1
        if self.args.token is not None and headers.get("authorization") != "Bearer " + self.args.token:
            self.stats["unauthorized"] += 1
            return 401, {"Content-Type": "text/plain", "WWW-Authenticate": "Bearer"}, b"unauthorized: bad or missing token"
        if headers.get("content-type", "").split(";")[0].strip() != "application/sdp":
            return 415, {"Content-Type": "text/plain"}, b"offers must be application/sdp"
        if self.pc is not None:
            return 409, {"Content-Type": "text/plain"}, b"one session at a time"
        offer = body.decode()
        self.posted_at = time.monotonic()
        self.stats["offer_sendonly"] = "a=sendonly" in offer
        self.stats["offer_recvonly"] = "a=recvonly" in offer
        self.stats["offer_actpass"] = "a=setup:actpass" in offer
        self.stats["offer_candidates"] = sorted(line.split()[4] for line in offer.split("\r\n")
                                                if line.startswith("a=candidate:"))
        self.stats["offer_candidate_lines"] = [line for line in offer.split("\r\n") if line.startswith("a=candidate:")]
        # No ICE servers: aiortc's default (a Google STUN server by name) makes every answer wait for a DNS timeout
        # (5 s) on a machine without a resolver.
        self.pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        on_decoded_frames(self.pc, self.on_frame)

        @self.pc.on("iceconnectionstatechange")
        def on_ice():
            self.stats["ice"] = self.pc.iceConnectionState

        await self.pc.setRemoteDescription(session_description(offer, "offer"))
        if self.args.whep:
            self.stats["sent"] = 0
            self.pc.addTrack(PatternTrack(self.stats))
        await self.pc.setLocalDescription(await self.pc.createAnswer())
        answer = self.pc.localDescription.sdp
        self.stats["answer_setup"] = next((line[8:] for line in answer.split("\r\n") if line.startswith("a=setup:")), None)
        self.stats["answer_codecs"] = [line[9:] for line in answer.split("\r\n") if line.startswith("a=rtpmap:")]
        self.resource = uuid.uuid4().hex
        self.answered_at = time.monotonic()
        # A relative Location (RFC 3986 section 5.2): /whip/resource/<id> seen from the URL that was POSTed to.
        location = ("resource/" if target == self.base + "/endpoint" else self.base[1:] + "/resource/") + self.resource
        headers = {"Content-Type": "application/sdp", "Location": location, "ETag": '"' + self.resource + '"'}
        for number, link in enumerate(self.args.link):
            headers["Link" + " " * number] = link  # repeated fields (the writer prints the name stripped)
        return 201, headers, self.pc.localDescription.sdp.encode()

    async def trickle(self, headers, body):
        if headers.get("content-type", "").split(";")[0].strip() != "application/trickle-ice-sdpfrag":
            return 415, {"Content-Type": "text/plain"}, b"fragments must be application/trickle-ice-sdpfrag"
        lines = body.decode().split("\r\n")
        mid = next((line[6:] for line in lines if line.startswith("a=mid:")), None)
        candidates = [line[len("a=candidate:"):] for line in lines if line.startswith("a=candidate:")]
        for text in candidates:
            candidate = candidate_from_sdp(text)
            candidate.sdpMid = mid
            await self.pc.addIceCandidate(candidate)
        self.stats["trickled"] = self.stats.get("trickled", []) + [" ".join(text.split()[4:8]) for text in candidates]
        return 204, {}, b""

    def nominated(self):
        """The remote candidate of the pair aioice nominated (its Connection is not public API: best effort)."""
        try:
            for transceiver in self.pc.getTransceivers():
                pair = transceiver.receiver.transport.transport._connection._nominated.get(1)
                if pair is not None:
                    remote = pair.remote_candidate
                    return {"host": remote.host, "port": remote.port, "type": remote.type}
        except Exception as error:
            return {"error": str(error)}
        return None

    async def handle(self, reader, writer):
        try:
            request = await reader.readuntil(b"\r\n\r\n")
            lines = request.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length", "0"))
            body = await reader.readexactly(length) if length else b""
            status, reply_headers, reply = 404, {"Content-Type": "text/plain"}, b"not found"
            if method == "POST" and target == self.base and self.args.redirect and self.stats["redirected"] == 0:
                self.stats["redirected"] += 1
                status, reply_headers, reply = 307, {"Location": self.base + "/endpoint"}, b""
            elif method == "POST" and target in (self.base, self.base + "/endpoint"):
                status, reply_headers, reply = await self.post(target, headers, body)
            elif method == "PATCH" and self.resource and target == self.base + "/resource/" + self.resource:
                self.stats["patches"] = self.stats.get("patches", 0) + 1
                if self.args.trickle and headers.get("if-match") == '"' + self.resource + '"':
                    # Trickle ICE (RFC 9725 section 4.3.1): the fragment's candidates added to aioice.
                    status, reply_headers, reply = await self.trickle(headers, body)
                elif self.args.trickle and headers.get("if-match") not in (None, "*", '"*"'):
                    status, reply_headers, reply = 412, {"Content-Type": "text/plain"}, b"stale ETag"
                else:
                    # No ICE restart here (aioice restarts nothing), nor trickle without --trickle: RFC 9725's answer.
                    status, reply_headers, reply = 405, {"Allow": "POST, DELETE", "Content-Type": "text/plain"}, b"no ICE restart"
            elif method == "DELETE" and self.resource and target == self.base + "/resource/" + self.resource:
                if self.args.token is not None and headers.get("authorization") != "Bearer " + self.args.token:
                    self.stats["unauthorized"] += 1
                    status, reply_headers, reply = 401, {"Content-Type": "text/plain"}, b"unauthorized"
                else:
                    self.stats["deleted"] = True
                    self.stats["nominated"] = self.nominated()
                    status, reply_headers, reply = 200, {}, b""
                    self.done.set()
            reasons = {200: "OK", 201: "Created", 307: "Temporary Redirect", 401: "Unauthorized", 404: "Not Found",
                       204: "No Content", 405: "Method Not Allowed", 412: "Precondition Failed",
                       409: "Conflict", 415: "Unsupported Media Type"}
            head = "HTTP/1.1 %d %s\r\n" % (status, reasons.get(status, "Status"))
            for name, value in reply_headers.items():
                head += "%s: %s\r\n" % (name.strip(), value)
            head += "Content-Length: %d\r\nConnection: close\r\n\r\n" % len(reply)
            writer.write(head.encode("latin-1") + reply)
            await writer.drain()
        except Exception as error:  # a bad request ends only its connection
            print(json.dumps({"error": str(error)}), flush=True)
        finally:
            writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--token")
    parser.add_argument("--redirect", action="store_true")
    parser.add_argument("--close-after", type=int, default=0, help="close the PeerConnection after N frames")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--trickle", action="store_true", help="accept trickled candidates (PATCH with the ETag)")
    parser.add_argument("--link", action="append", default=[], help="a Link header of the 201 (repeatable)")
    parser.add_argument("--report", required=True)
    parser.add_argument("--whep", action="store_true", help="a WHEP endpoint: send a pattern to the player")
    parser.add_argument("--tls-cert", help="serve HTTPS with this PEM certificate chain (needs --tls-key)")
    parser.add_argument("--tls-key", help="the certificate's PEM private key")
    args = parser.parse_args()
    endpoint = Endpoint(args)
    context = None
    if args.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(args.tls_cert, args.tls_key)
    server = await asyncio.start_server(endpoint.handle, args.listen, args.port, ssl=context)
    port = server.sockets[0].getsockname()[1]
    scheme = "https" if context else "http"
    print(json.dumps({"listening": "%s://%s:%d%s" % (scheme, args.listen, port, endpoint.base)}), flush=True)
    await wait_at_most(endpoint.done, args.timeout)
    await asyncio.sleep(0.2)
    if endpoint.pc is not None:
        endpoint.stats["ice"] = endpoint.pc.iceConnectionState
        await endpoint.pc.close()
    server.close()
    with open(args.report, "w") as out:
        json.dump(endpoint.stats, out)


if __name__ == "__main__":
    asyncio.run(main())
