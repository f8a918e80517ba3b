"""A user-space Ethernet bridge that delays and drops (this kernel has no netem): frames read from one interface
(an AF_PACKET socket) are written to the other after DELAY ms, each UDP datagram lost with probability LOSS in each
direction; ARP and other frames cross after the same delay, never lost. Run inside the namespace that holds both
interfaces (run-latency.sh IMPAIR=...); the interfaces' offloads must be off (ethtool -K ... tx off tso off gso off
gro off) so that every frame read is whole and checksummed. Prints one JSON line of counters on SIGTERM.

Usage: impair_bridge.py IFACE_A IFACE_B --delay-ms 25 --loss 0.02 [--seed 1]
"""
import argparse
import heapq
import json
import random
import select
import signal
import socket
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
ETHERTYPE_IPV4 = b"\x08\x00"
IPPROTO_UDP = 17


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--delay-ms", type=float, default=25.0)
    parser.add_argument("--loss", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not (0 <= args.delay_ms <= 10_000) or not (0 <= args.loss < 1):
        sys.exit("--delay-ms must be 0-10000 and --loss 0-1")
    rng = random.Random(args.seed)
    sockets = {}
    for name in (args.a, args.b):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.bind((name, 0))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)  # a keyframe's burst is never dropped here
        s.setblocking(False)
        sockets[name] = s
    other = {args.a: sockets[args.b], args.b: sockets[args.a]}
    counters = {"forwarded": 0, "udpLost": 0, "udp": 0, "sendErrors": 0}
    queue = []  # (due, sequence, socket, frame)
    sequence = 0
    delay = args.delay_ms / 1000

    def stop(*_):
        print(json.dumps(counters), flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print("bridging", flush=True)
    by_fd = {s.fileno(): name for name, s in sockets.items()}
    while True:
        now = time.monotonic()
        while queue and queue[0][0] <= now:
            _, _, out, frame = heapq.heappop(queue)
            try:
                out.send(frame)
                counters["forwarded"] += 1
            except OSError:
                counters["sendErrors"] += 1  # reported: a frame the bridge could not pass is not a silent loss
        timeout = max(0.0, queue[0][0] - now) if queue else 0.5
        readable, _, _ = select.select(list(sockets.values()), [], [], timeout)
        for s in readable:
            name = by_fd[s.fileno()]
            while True:
                try:
                    frame, address = s.recvfrom(65_535)
                except BlockingIOError:
                    break
                if address[2] == PACKET_OUTGOING:
                    continue  # our own writes, seen again
                if frame[12:14] == ETHERTYPE_IPV4 and len(frame) > 23 and frame[23] == IPPROTO_UDP:
                    counters["udp"] += 1
                    if rng.random() < args.loss:
                        counters["udpLost"] += 1
                        continue
                sequence += 1
                heapq.heappush(queue, (time.monotonic() + delay, sequence, other[name], frame))


if __name__ == "__main__":
    main()
