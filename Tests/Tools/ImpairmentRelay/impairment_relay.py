#!/usr/bin/env python3
"""A user-space UDP impairment relay for loopback tests (this kernel has no netem).

It sits between a sender and a receiver and forwards both directions:

    sender --RTP--> [listen] relay [ephemeral] --RTP--> receiver (--to)
    sender <-RTCP-- [listen] relay [ephemeral] <-RTCP-- receiver

Each direction ("fwd": sender to receiver, "rev": receiver to sender) has its own impairments, applied in this
order to every datagram:

1. blackout windows (everything dropped),
2. random loss (Bernoulli, `loss`) and burst loss (Gilbert-Elliott: `ge_p` good->bad, `ge_r` bad->good, `ge_loss`
   the loss rate in the bad state),
3. a bandwidth limit (`rate_kbps`) with a drop-tail queue of `queue` packets (the bottleneck: each packet leaves
   when the link has serialized the ones ahead of it),
4. a fixed delay (`delay_ms`) plus uniform jitter (`jitter_ms`, +-); packets stay in order unless `reorder` > 0, the
   probability that a packet is held back an extra `reorder_ms`.

A schedule changes parameters over time: `--fwd-schedule "20:rate_kbps=500;40:rate_kbps=2000"` (seconds since the
relay started). Random decisions use one seeded generator per direction, so a run is reproducible.

Counters are printed (and written as JSON with --stats-json) when the relay stops: after --duration, on SIGINT or
SIGTERM, or when `stop()` is called by a test.

Examples:
    impairment_relay.py --listen 127.0.0.1:6000 --to 127.0.0.1:5004 --fwd delay_ms=25,loss=0.05 \\
        --rev delay_ms=25,loss=0.05 --seed 1
    impairment_relay.py --listen 127.0.0.1:6000 --to 127.0.0.1:5004 --fwd delay_ms=25,rate_kbps=1000,queue=30
"""

import argparse
import heapq
import json
import random
import selectors
import signal
import socket
import sys
import threading
import time
from collections import deque

PARAMETERS = {
    "delay_ms": 0.0, "jitter_ms": 0.0, "loss": 0.0, "ge_p": 0.0, "ge_r": 1.0, "ge_loss": 1.0,
    "rate_kbps": 0.0, "queue": 1000, "reorder": 0.0, "reorder_ms": 0.0,
}
MAX_DATAGRAM = 65535
SOCKET_BUFFER = 4 * 1024 * 1024


def parse_parameters(text):
    """'delay_ms=25,loss=0.01' -> dict, validated."""
    result = {}
    if not text:
        return result
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" not in item:
            raise ValueError(f"expected key=value, got {item!r}")
        key, value = item.split("=", 1)
        key = key.strip()
        if key not in PARAMETERS:
            raise ValueError(f"unknown parameter {key!r} (known: {', '.join(sorted(PARAMETERS))})")
        number = float(value)
        if number < 0 or number != number or number == float("inf"):
            raise ValueError(f"{key} must be a finite value >= 0, got {value!r}")
        if key in ("loss", "ge_p", "ge_r", "ge_loss", "reorder") and number > 1:
            raise ValueError(f"{key} is a probability in 0...1, got {value!r}")
        result[key] = int(number) if key == "queue" else number
    return result


def parse_schedule(text):
    """'20:rate_kbps=500;40:rate_kbps=2000' -> [(20.0, {...}), (40.0, {...})], sorted."""
    steps = []
    if not text:
        return steps
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        at, _, params = part.partition(":")
        steps.append((float(at), parse_parameters(params)))
    return sorted(steps, key=lambda step: step[0])


def parse_blackouts(text):
    """'5:1;30:0.5' -> [(5.0, 6.0), (30.0, 30.5)] (start second and duration)."""
    windows = []
    if not text:
        return windows
    for part in text.split(";"):
        part = part.strip()
        if part:
            start, _, length = part.partition(":")
            windows.append((float(start), float(start) + float(length)))
    return windows


def parse_address(text):
    host, _, port = text.rpartition(":")
    return (host or "127.0.0.1", int(port))


class Direction:
    """The impairments and counters of one direction."""

    def __init__(self, name, parameters, schedule, blackouts, seed):
        self.name = name
        self.parameters = dict(PARAMETERS)
        self.parameters.update(parameters)
        self.schedule = list(schedule)
        self.blackouts = blackouts
        self.random = random.Random(seed)
        self.bad_state = False
        self.link_free_at = 0.0
        self.link_queue = deque()  # departure times of packets still in the bottleneck queue
        self.last_delivery = 0.0
        self.counters = {
            "received": 0, "forwarded": 0, "bytes_forwarded": 0, "dropped_blackout": 0, "dropped_random": 0,
            "dropped_burst": 0, "dropped_queue": 0, "max_queue": 0, "reordered": 0,
        }
        self.total_delay = 0.0
        self.max_delay = 0.0

    def apply_schedule(self, elapsed):
        while self.schedule and self.schedule[0][0] <= elapsed:
            _, changes = self.schedule.pop(0)
            self.parameters.update(changes)

    def decide(self, now, elapsed, size):
        """Returns the delivery time of a datagram arriving at `now`, or None when it is dropped."""
        self.apply_schedule(elapsed)
        p = self.parameters
        self.counters["received"] += 1
        if any(start <= elapsed < end for start, end in self.blackouts):
            self.counters["dropped_blackout"] += 1
            return None
        if p["ge_p"] > 0:
            # Gilbert-Elliott: move between states first, then lose with the bad state's rate.
            if self.bad_state:
                if self.random.random() < p["ge_r"]:
                    self.bad_state = False
            elif self.random.random() < p["ge_p"]:
                self.bad_state = True
            if self.bad_state and self.random.random() < p["ge_loss"]:
                self.counters["dropped_burst"] += 1
                return None
        if p["loss"] > 0 and self.random.random() < p["loss"]:
            self.counters["dropped_random"] += 1
            return None
        leave = now
        if p["rate_kbps"] > 0:
            while self.link_queue and self.link_queue[0] <= now:
                self.link_queue.popleft()
            if len(self.link_queue) >= p["queue"]:
                self.counters["dropped_queue"] += 1
                return None
            leave = max(now, self.link_free_at) + size * 8 / (p["rate_kbps"] * 1000)
            self.link_free_at = leave
            self.link_queue.append(leave)
            self.counters["max_queue"] = max(self.counters["max_queue"], len(self.link_queue))
        delay = p["delay_ms"] / 1000
        if p["jitter_ms"] > 0:
            delay = max(0.0, delay + self.random.uniform(-p["jitter_ms"], p["jitter_ms"]) / 1000)
        deliver = leave + delay
        if p["reorder"] > 0 and self.random.random() < p["reorder"]:
            deliver += p["reorder_ms"] / 1000
            self.counters["reordered"] += 1
        else:
            deliver = max(deliver, self.last_delivery)  # no reordering from jitter alone
            self.last_delivery = deliver
        self.counters["forwarded"] += 1
        self.counters["bytes_forwarded"] += size
        self.total_delay += deliver - now
        self.max_delay = max(self.max_delay, deliver - now)
        return deliver

    def summary(self):
        result = dict(self.counters)
        forwarded = self.counters["forwarded"]
        result["mean_added_delay_ms"] = round(self.total_delay / forwarded * 1000, 3) if forwarded else 0.0
        result["max_added_delay_ms"] = round(self.max_delay * 1000, 3)
        return result


class Relay:
    """The relay: two sockets, two directions, one timer heap. `run()` blocks until `stop()` or the duration."""

    def __init__(self, listen, to, fwd, rev, duration=None, bind_b=("127.0.0.1", 0)):
        self.to = to
        self.fwd = fwd
        self.rev = rev
        self.duration = duration
        self.side_a = self._socket(listen)
        self.side_b = self._socket(bind_b)
        self.peer_a = None  # the sender, learned from its first datagram
        self.heap = []
        self.counter = 0
        self.stopping = threading.Event()
        self.started = None
        self.late = []  # how late each datagram left compared with its delivery time, in seconds
        self.ready = threading.Event()

    @staticmethod
    def _socket(address):
        sock = socket.socket(socket.AF_INET6 if ":" in address[0] else socket.AF_INET, socket.SOCK_DGRAM)
        for option in (socket.SO_RCVBUF, socket.SO_SNDBUF):
            try:
                sock.setsockopt(socket.SOL_SOCKET, option, SOCKET_BUFFER)
            except OSError:
                pass
        sock.bind(address)
        sock.setblocking(False)
        return sock

    @property
    def listen_address(self):
        return self.side_a.getsockname()[:2]

    def stop(self):
        self.stopping.set()

    def _receive(self, sock, direction, out_sock, now):
        while True:
            try:
                data, source = sock.recvfrom(MAX_DATAGRAM)
            except (BlockingIOError, InterruptedError):
                return
            except ConnectionRefusedError:
                continue  # ICMP from an earlier send; nothing to read
            if sock is self.side_a:
                self.peer_a = source
                destination = self.to
            else:
                if self.peer_a is None:
                    continue  # nobody to send back to yet
                destination = self.peer_a
            deliver = direction.decide(now, now - self.started, len(data))
            if deliver is not None:
                self.counter += 1
                heapq.heappush(self.heap, (deliver, self.counter, out_sock, data, destination))

    def _flush(self, now):
        while self.heap and self.heap[0][0] <= now:
            deliver, _, sock, data, destination = heapq.heappop(self.heap)
            self.late.append(now - deliver)
            try:
                sock.sendto(data, destination)
            except OSError:
                pass  # the peer is gone; counted as forwarded all the same

    def run(self):
        selector = selectors.DefaultSelector()
        selector.register(self.side_a, selectors.EVENT_READ, (self.fwd, self.side_b))
        selector.register(self.side_b, selectors.EVENT_READ, (self.rev, self.side_a))
        self.started = time.monotonic()
        self.ready.set()
        end = self.started + self.duration if self.duration else None
        try:
            while not self.stopping.is_set():
                now = time.monotonic()
                if end is not None and now >= end:
                    break
                self._flush(now)
                timeout = 0.05
                if self.heap:
                    timeout = min(timeout, max(0.0, self.heap[0][0] - now))
                for key, _ in selector.select(timeout):
                    direction, out_sock = key.data
                    self._receive(key.fileobj, direction, out_sock, time.monotonic())
                self._flush(time.monotonic())
        finally:
            selector.close()
            self.side_a.close()
            self.side_b.close()

    def summary(self):
        late = sorted(self.late)
        timing = {}
        if late:
            timing = {
                "late_p50_ms": round(late[len(late) // 2] * 1000, 3),
                "late_p99_ms": round(late[min(len(late) - 1, int(len(late) * 0.99))] * 1000, 3),
                "late_max_ms": round(late[-1] * 1000, 3),
            }
        return {"fwd": self.fwd.summary(), "rev": self.rev.summary(), "timing": timing}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--listen", required=True, help="address the sender sends to, host:port")
    parser.add_argument("--to", required=True, help="the receiver's address, host:port")
    parser.add_argument("--fwd", default="", help="sender->receiver impairments, key=value,...")
    parser.add_argument("--rev", default="", help="receiver->sender impairments, key=value,...")
    parser.add_argument("--fwd-schedule", default="", help="'seconds:key=value,...;seconds:...'")
    parser.add_argument("--rev-schedule", default="")
    parser.add_argument("--fwd-blackout", default="", help="'start:length;...' in seconds")
    parser.add_argument("--rev-blackout", default="")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--duration", type=float, default=None, help="stop after this many seconds")
    parser.add_argument("--stats-json", default=None, help="write the counters here when stopping")
    args = parser.parse_args(argv)
    try:
        fwd = Direction("fwd", parse_parameters(args.fwd), parse_schedule(args.fwd_schedule),
                        parse_blackouts(args.fwd_blackout), args.seed)
        rev = Direction("rev", parse_parameters(args.rev), parse_schedule(args.rev_schedule),
                        parse_blackouts(args.rev_blackout), args.seed + 1)
        relay = Relay(parse_address(args.listen), parse_address(args.to), fwd, rev, args.duration)
    except (ValueError, OSError) as error:
        print(f"impairment_relay: {error}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: relay.stop())
    signal.signal(signal.SIGINT, lambda *_: relay.stop())
    print(f"impairment_relay: listening on {relay.listen_address[0]}:{relay.listen_address[1]}, "
          f"forwarding to {args.to}", file=sys.stderr, flush=True)
    relay.run()
    summary = relay.summary()
    text = json.dumps(summary, indent=2, sort_keys=True)
    print(text, flush=True)
    if args.stats_json:
        with open(args.stats_json, "w") as out:
            out.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
