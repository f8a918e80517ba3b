import NIOCore
import Testing
import TestSupport
@testable import Transport

/// UDP segmentation offload on the send path: which packets of a flush leave together (`SegmentRun`), how a path is
/// proven and given up (`SegmentationOffload`), and that a real socket's receiver gets the very datagrams queued.
@Suite struct SegmentationOffloadTests {
    /// Runs over the packets with these lengths, as `UDPTransport.flush` forms them (`SegmentRun.split`): each run's
    /// packet count; the runs tile the packets in order.
    static func runs(_ lengths: [Int], offload: Bool = true) -> [Int] {
        var ends: [Int] = []
        var end = 0
        for length in lengths {
            end += length
            ends.append(end)
        }
        var result: [Int] = []
        var next = 0
        SegmentRun.split(ends: ends, offload: offload) { run in
            #expect(run.start == next)
            next = run.end
            result.append(run.count)
        }
        #expect(next == end)
        return result
    }

    /// An FU-A frame's fragments (the longer ones first, one byte apart) make two runs: the longer ones and the first
    /// shorter one, then the rest. A longer packet after a shorter one starts a run; so does any packet after a run's
    /// shorter last one.
    @Test func equalPacketsJoinAndAShorterOneEndsTheRun() {
        #expect(Self.runs([1201, 1201, 1200, 1200, 1200, 900]) == [3, 3])
        #expect(Self.runs([1200, 1200, 1200, 1200]) == [4])
        #expect(Self.runs([300, 1200, 1200]) == [1, 2])
        #expect(Self.runs([1200, 300, 300]) == [2, 1])
        #expect(Self.runs([100]) == [1])
    }

    /// The limits: at most 64 packets in a run, no segment over 1,452 bytes (a 1,500-byte link under IPv6 and UDP),
    /// at most 60,000 bytes in a write, and nothing joins with the offload off.
    @Test func runsKeepWithinTheKernelsAndTheLinksLimits() {
        #expect(Self.runs([Int](repeating: 200, count: 130)) == [64, 64, 2])
        #expect(Self.runs([1452, 1452]) == [2])
        #expect(Self.runs([1453, 1453, 1000]) == [1, 1, 1])
        #expect(Self.runs([Int](repeating: 1400, count: 50)) == [42, 8])  // 42 x 1,400 = 58,800 <= 60,000
        #expect(Self.runs([1200, 1200, 1200], offload: false) == [1, 1, 1])
    }

    /// A segment size is proven once a write of it went through; longer ones need proof again, a new path needs it
    /// for every size, and one failure turns the offload off.
    @Test func aPathIsProvenPerSegmentSizeAndOneFailureTurnsTheOffloadOff() {
        var offload = SegmentationOffload(enabled: true)
        #expect(offload.isEnabled)
        #expect(offload.needsProof(segmentSize: 1200))
        offload.succeeded(segmentSize: 1200)
        #expect(!offload.needsProof(segmentSize: 1200))
        #expect(!offload.needsProof(segmentSize: 900))
        #expect(offload.needsProof(segmentSize: 1201))
        offload.pathChanged()
        #expect(offload.needsProof(segmentSize: 900))
        offload.failed()
        #expect(!offload.isEnabled)
        #expect(!SegmentationOffload(enabled: false).isEnabled)
    }

    /// Through a real socket: a flush of an FU-A-like frame reaches a plain UDP receiver as the same datagrams in the
    /// same order, in two segmented writes where Linux has the offload (one datagram per packet otherwise), and again
    /// once the size is proven; with the offload configured off, the same datagrams one write each.
    @Test(arguments: [true, false])
    func aSegmentedFlushArrivesAsTheSameDatagrams(_ enabled: Bool) async throws {
        #if os(Linux)
        #expect(System.supportsUDPSegmentationOffload, "this Linux kernel has no UDP_SEGMENT (4.18 or later has)")
        #endif
        let receiver = try RawUDPSocket()
        var configuration = LoopbackTransport.configuration(
            peer: try SocketAddress(ipAddress: "127.0.0.1", port: receiver.port))
        configuration.segmentationOffload = enabled
        let transport = try await LoopbackTransport(configuration)
        let lengths = [1201, 1201, 1200, 1200, 1200, 900]
        var packets: [[UInt8]] = []
        for round in 0..<2 {
            let batch = lengths.enumerated().map { index, length in
                LoopbackTransport.rtpPacket(
                    sequenceNumber: UInt16(round * 10 + index),
                    payload: (0..<(length - 12)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index &+ round) })
            }
            packets += batch
            try await transport.onLoop { transport in
                for packet in batch { try packet.withUnsafeBytes { try transport.queueRTP($0) } }
                #expect(transport.flush() == batch.count)
            }
        }
        var received: [[UInt8]] = []
        #expect(await Poll.until {
            while let datagram = receiver.receive() { received.append(datagram.bytes) }
            return received.count >= packets.count
        })
        #expect(received == packets)
        let counters = try await transport.counters()
        #expect(counters.rtpPacketsSent == 12)
        #expect(counters.rtpBytesSent == 2 * lengths.reduce(0, +))
        #expect(counters.segmentedWrites == (enabled && System.supportsUDPSegmentationOffload ? 4 : 0))
        #expect(counters.segmentationOffloadFailures == 0)
        #expect(counters.socketErrors == 0)
        await transport.close()
    }
}
