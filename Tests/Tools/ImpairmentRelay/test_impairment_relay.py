#!/usr/bin/env python3
"""Self-checks of the impairment relay: it delays, drops, limits and blacks out as configured, at 2 Mbit/s of
1,200-byte packets. Run: python3 Tests/Tools/ImpairmentRelay/test_impairment_relay.py (about 15 s)."""

import os
import socket
import struct
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import impairment_relay as ir  # noqa: E402

# Four threads share the interpreter here (sender, relay, receiver, echo receiver): hand the lock over every 0.5 ms
# instead of 5 ms so that none of them waits on another's time slice.
sys.setswitchinterval(0.0005)

HEADER = struct.Struct("!Id")  # sequence number, send time (monotonic seconds)


class Harness:
    """A relay in a thread between a UDP 'sender' and a 'receiver' that records arrivals (and can echo back)."""

    def __init__(self, fwd="", rev="", fwd_blackout="", fwd_schedule="", seed=1, echo_every=0):
        self.receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.receiver.bind(("127.0.0.1", 0))
        self.receiver.settimeout(0.05)
        self.sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sender.bind(("127.0.0.1", 0))
        self.sender.settimeout(0.05)
        self.relay = ir.Relay(
            ("127.0.0.1", 0), self.receiver.getsockname(),
            ir.Direction("fwd", ir.parse_parameters(fwd), ir.parse_schedule(fwd_schedule),
                         ir.parse_blackouts(fwd_blackout), seed),
            ir.Direction("rev", ir.parse_parameters(rev), [], [], seed + 1))
        self.echo_every = echo_every
        self.arrivals = {}  # seq -> (send time, arrival time)
        self.echoes = {}
        self.done = threading.Event()
        self.threads = [threading.Thread(target=self.relay.run), threading.Thread(target=self._receive),
                        threading.Thread(target=self._receive_echoes)]

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        self.relay.ready.wait(5)
        return self

    def __exit__(self, *_):
        self.done.set()
        self.relay.stop()
        for thread in self.threads:
            thread.join(5)
        self.receiver.close()
        self.sender.close()

    def _receive(self):
        while not self.done.is_set():
            try:
                data, source = self.receiver.recvfrom(65535)
            except socket.timeout:
                continue
            now = time.monotonic()
            seq, sent = HEADER.unpack_from(data)
            self.arrivals[seq] = (sent, now)
            if self.echo_every and seq % self.echo_every == 0:
                self.receiver.sendto(HEADER.pack(seq, now) + bytes(92), source)

    def _receive_echoes(self):
        while not self.done.is_set():
            try:
                data, _ = self.sender.recvfrom(65535)
            except socket.timeout:
                continue
            seq, sent = HEADER.unpack_from(data)
            self.echoes[seq] = (sent, time.monotonic())

    def send(self, count, bitrate, size=1200):
        """Sends `count` packets of `size` bytes paced at `bitrate`; returns the send times."""
        interval = size * 8 / bitrate
        start = time.monotonic()
        padding = bytes(size - HEADER.size)
        times = []
        for seq in range(count):
            target = start + seq * interval
            while True:
                now = time.monotonic()
                if now >= target:
                    break
                time.sleep(min(target - now, 0.002))
            now = time.monotonic()
            self.sender.sendto(HEADER.pack(seq, now) + padding, self.relay.listen_address)
            times.append(now)
        return times

    def settle(self, seconds=0.3):
        time.sleep(seconds)


def percentile(values, fraction):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * fraction))]


class ImpairmentRelayTests(unittest.TestCase):
    def test_delay_is_accurate_at_two_megabits_both_ways(self):
        with Harness(fwd="delay_ms=25", rev="delay_ms=10", echo_every=10) as h:
            h.send(625, 2_000_000)  # 3 s of 2 Mbit/s in 1,200-byte packets
            h.settle()
            summary = h.relay.summary()
        self.assertEqual(len(h.arrivals), 625, "nothing may be lost without impairment")
        delays = [(arrival - sent) * 1000 for sent, arrival in h.arrivals.values()]
        # The relay's own decisions are exact: every datagram held 25 ms, none more (a queue or a second delay would
        # show here whatever the machine's load).
        self.assertEqual(summary["fwd"]["mean_added_delay_ms"], 25.0)
        self.assertEqual(summary["fwd"]["max_added_delay_ms"], 25.0)
        # Measured end to end (another thread's clock, through two sockets): never early, and the bulk on time. The
        # tail is the machine's scheduling, not the relay's: on a loaded 2-core CI runner p99 read 49 ms with the
        # median on time, so it is printed below rather than asserted (timing figures belong to the benchmarks).
        self.assertGreaterEqual(min(delays), 24.9)
        self.assertLess(percentile(delays, 0.5), 27.0)
        self.assertLess(percentile(delays, 0.9), 30.0)
        echo_delays = [(arrival - sent) * 1000 for sent, arrival in h.echoes.values()]
        self.assertEqual(len(echo_delays), 63)
        self.assertGreaterEqual(min(echo_delays), 9.9)
        self.assertLess(percentile(echo_delays, 0.5), 12.0)
        self.assertEqual(summary["fwd"]["forwarded"], 625)
        self.assertEqual(summary["rev"]["forwarded"], 63)
        print(f"\n  delay 25 ms at 2 Mbit/s: measured p50 {percentile(delays, 0.5):.2f} ms, "
              f"p99 {percentile(delays, 0.99):.2f} ms, max {max(delays):.2f} ms; relay timing {summary['timing']}")

    def test_random_loss_matches_rate_and_seed(self):
        lost_sets = []
        for _ in range(2):
            with Harness(fwd="loss=0.1", seed=7) as h:
                h.send(1000, 8_000_000)
                h.settle(0.2)
                summary = h.relay.summary()
            lost = set(range(1000)) - set(h.arrivals)
            self.assertEqual(len(lost), summary["fwd"]["dropped_random"], "the counters match what was lost")
            self.assertTrue(70 <= len(lost) <= 130, f"10 % of 1000, got {len(lost)}")
            lost_sets.append(lost)
        self.assertEqual(lost_sets[0], lost_sets[1], "the same seed loses the same packets")

    def test_gilbert_elliott_losses_come_in_bursts(self):
        with Harness(fwd="ge_p=0.02,ge_r=0.25,ge_loss=1", seed=3) as h:
            h.send(2000, 16_000_000)
            h.settle(0.2)
            summary = h.relay.summary()
        lost = sorted(set(range(2000)) - set(h.arrivals))
        runs, previous = 0, None
        for seq in lost:
            if previous is None or seq != previous + 1:
                runs += 1
            previous = seq
        self.assertEqual(len(lost), summary["fwd"]["dropped_burst"])
        self.assertGreater(len(lost) / max(runs, 1), 2.5, "mean burst length ~ 1 / ge_r = 4")

    def test_bandwidth_limit_with_drop_tail_queue(self):
        with Harness(fwd="rate_kbps=1000,queue=30") as h:
            h.send(417, 2_000_000)  # 2 s at 2 Mbit/s into a 1 Mbit/s link
            h.settle(0.5)
            summary = h.relay.summary()
        arrivals = sorted(arrival for _, arrival in h.arrivals.values())
        span = arrivals[-1] - arrivals[0]
        rate = (len(arrivals) - 1) * 1200 * 8 / span
        self.assertTrue(900_000 <= rate <= 1_100_000, f"throughput {rate:.0f} bit/s")
        self.assertGreater(summary["fwd"]["dropped_queue"], 150)
        self.assertEqual(summary["fwd"]["max_queue"], 30)
        # A 30-packet queue at 1 Mbit/s holds at most 30 x 9.6 ms = 288 ms: exact in the relay's decisions, and in
        # what arrived for all but the machine's scheduling stalls (a loaded CI runner added up to 30 ms to a few).
        self.assertLessEqual(summary["fwd"]["max_added_delay_ms"], 288.0 + 0.001)
        self.assertGreater(summary["fwd"]["max_added_delay_ms"], 270.0, "the queue filled")
        delays = [arrival - sent for sent, arrival in h.arrivals.values()]
        self.assertLess(percentile(delays, 0.95), 0.300, "a 30-packet queue at 1 Mbit/s holds at most 288 ms")

    def test_blackout_and_capacity_step(self):
        with Harness(fwd="rate_kbps=2000,queue=1000", fwd_blackout="0.5:0.5", fwd_schedule="1.2:rate_kbps=500") as h:
            start = h.relay.started
            times = h.send(200, 800_000)  # 2.4 s at 800 kbit/s
            h.settle(0.5)
        for seq, sent in enumerate(times):
            elapsed = sent - start
            if 0.52 < elapsed < 0.98:
                self.assertNotIn(seq, h.arrivals, f"sent {elapsed:.3f} s into the blackout")
            elif elapsed < 0.48:
                self.assertIn(seq, h.arrivals)
        # After 1.2 s the link carries 500 kbit/s while 800 kbit/s is offered: arrivals spread out to 500 kbit/s.
        late = sorted(arrival for seq, (sent, arrival) in h.arrivals.items() if times[seq] - start > 1.4)
        rate = (len(late) - 1) * 1200 * 8 / (late[-1] - late[0])
        self.assertTrue(450_000 <= rate <= 550_000, f"after the step {rate:.0f} bit/s")

    def test_command_line_prints_counters(self):
        import json
        import subprocess
        import tempfile
        receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        receiver.bind(("127.0.0.1", 0))
        receiver.settimeout(2)
        with tempfile.TemporaryDirectory() as directory:
            stats = os.path.join(directory, "stats.json")
            process = subprocess.Popen(
                [sys.executable, ir.__file__, "--listen", "127.0.0.1:0",
                 "--to", "127.0.0.1:%d" % receiver.getsockname()[1], "--fwd", "delay_ms=5", "--duration", "1.5",
                 "--stats-json", stats], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            line = process.stderr.readline()
            port = int(line.split(" on ")[1].split(",")[0].rsplit(":", 1)[1])
            sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            for seq in range(5):
                sender.sendto(HEADER.pack(seq, 0) + bytes(100), ("127.0.0.1", port))
            received = [receiver.recvfrom(2048)[0] for _ in range(5)]
            out, _ = process.communicate(timeout=10)
            self.assertEqual(process.returncode, 0)
            self.assertEqual(len(received), 5)
            with open(stats) as f:
                self.assertEqual(json.load(f)["fwd"]["forwarded"], 5)
            self.assertIn('"forwarded": 5', out)
            sender.close()
        receiver.close()
        bad = subprocess.run([sys.executable, ir.__file__, "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9",
                              "--fwd", "loss=7"], capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("probability", bad.stderr)

    def test_bad_parameters_are_rejected(self):
        for text in ("loss=2", "delay_ms=-1", "nonsense=1", "delay_ms", "jitter_ms=nan"):
            with self.assertRaises(ValueError, msg=text):
                ir.parse_parameters(text)
        self.assertEqual(ir.parse_schedule("40:rate_kbps=2000;20:rate_kbps=500"),
                         [(20.0, {"rate_kbps": 500.0}), (40.0, {"rate_kbps": 2000.0})])


if __name__ == "__main__":
    unittest.main(verbosity=2)
