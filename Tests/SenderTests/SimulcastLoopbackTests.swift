import CongestionControl
import Foundation
import H264
import RTP
import Testing
import TestSupport
import Video
@testable import Codec
@testable import Sender

/// Simulcast from one `H264Sender` (issue 23, item 2) over loopback UDP, with real OpenH264: one stream per
/// encoding, each with its own SSRC, its mid and RTP stream id on every packet and a picture of its layer's size;
/// a REMB the top layer does not fit pauses it and a higher one resumes it with a keyframe; a PLI for one layer's
/// SSRC is answered by that layer's encoder alone.
@Suite(.serialized) struct SimulcastLoopbackTests {
    static let midID: UInt8 = 7
    static let ridID: UInt8 = 8

    /// Every packet received so far, by SSRC, in order.
    final class Collector: @unchecked Sendable {
        let socket: RawUDPSocket
        private let lock = NSLock()
        private var packets: [UInt32: [[UInt8]]] = [:]
        init() throws { socket = try RawUDPSocket() }

        func drain() {
            while let (bytes, _) = socket.receive() {
                guard bytes.count >= 12, bytes[0] >> 6 == 2, !(200...206).contains(bytes[1]) else { continue }
                let ssrc = UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11])
                lock.withLock { packets[ssrc, default: []].append(bytes) }
            }
        }

        var snapshot: [UInt32: [[UInt8]]] { drain(); return lock.withLock { packets } }
    }

    static func wait(_ condition: () -> Bool) async throws {
        for _ in 0..<200 where !condition() { try await Task.sleep(for: .milliseconds(50)) }
    }

    /// Keyframes (access units with an IDR) of one stream's packets.
    static func keyframes(_ packets: [[UInt8]]) -> Int {
        var depacketizer = H264Depacketizer()
        var count = 0
        for packet in packets {
            for case .frame(let frame) in depacketizer.push(packet) where frame.frame.isKeyframe { count += 1 }
        }
        return count
    }

    /// The size of the first picture decoded from one stream's packets, from its first keyframe on.
    static func firstPictureSize(_ packets: [[UInt8]]) throws -> (Int, Int)? {
        var depacketizer = H264Depacketizer()
        let decoder = try H264Decoder()
        var picture = I420Frame(width: 16, height: 16)
        var started = false
        for packet in packets {
            for case .frame(let frame) in depacketizer.push(packet) {
                started = started || frame.frame.isKeyframe
                if started, try decoder.decode(frame.frame.bytes, into: &picture) { return (picture.width, picture.height) }
            }
        }
        return nil
    }

    /// Waits until stream `ssrc` has sent nothing for `quiet` (at most 10 s), and returns its packet count then.
    static func waitUntilQuiet(_ collector: Collector, _ ssrc: UInt32, quiet: Duration = .milliseconds(700)) async throws -> Int {
        var count = collector.snapshot[ssrc]?.count ?? 0
        var still = Duration.zero
        var waited = Duration.zero
        while still < quiet, waited < .seconds(10) {
            try await Task.sleep(for: .milliseconds(100))
            waited += .milliseconds(100)
            let now = collector.snapshot[ssrc]?.count ?? 0
            still = now == count ? still + .milliseconds(100) : .zero
            count = now
        }
        return count
    }

    @Test(.timeLimit(.minutes(1)))
    func threeLayersEachWithItsSizeRIDPauseAndKeyframes() async throws {
        let collector = try Collector()
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: collector.socket.port,
            encoder: EncoderConfiguration(width: 320, height: 180, frameRate: 30, targetBitrate: 1_000_000))
        configuration.localHost = "127.0.0.1"
        configuration.security = nil
        configuration.keyframeThrottle = .milliseconds(100)
        configuration.simulcast = SimulcastEncoding.standard(width: 320, height: 180, count: 3)
        configuration.mid = "0"
        configuration.midExtensionID = Self.midID
        configuration.ridExtensionID = Self.ridID
        let sender = try await H264Sender(configuration: configuration)
        #expect(sender.simulcastSSRCs.count == 3 && Set(sender.simulcastSSRCs).count == 3)
        #expect(sender.simulcastSSRCs.first == sender.ssrc)
        let pump = FramePump(
            source: try PatternSource(width: 320, height: 180), sender: sender, pacing: .realTime, frameLimit: 1800)
        async let pumped = pump.run()
        defer { pump.stop() }

        // Every layer flows, each packet naming its mid and RTP stream id, each stream its layer's size.
        try await Self.wait { collector.snapshot.count == 3 && collector.snapshot.values.allSatisfy { $0.count >= 20 } }
        var streams = collector.snapshot
        #expect(Set(streams.keys) == Set(sender.simulcastSSRCs.map(\.rawValue)))
        for (index, ssrc) in sender.simulcastSSRCs.enumerated() {
            let packets = try #require(streams[ssrc.rawValue])
            let rid = configuration.simulcast[index].rid
            for packet in packets {
                let elements = try #require(try RTPPacketView(parsing: packet).header.headerExtension?.elements())
                let mid: [UInt8]? = elements.first { $0.id == Self.midID }?.data
                let named: [UInt8]? = elements.first { $0.id == Self.ridID }?.data
                #expect(mid == Array("0".utf8) && named == Array(rid.utf8), "ssrc \(ssrc.rawValue)")
            }
            let size = try #require(try Self.firstPictureSize(packets))
            let layer = configuration.simulcast[index].layer
            #expect(size == (layer.width, layer.height), "\(rid): \(size)")
        }

        // A REMB of 200 kbit/s: 150k for 80x44, 50k for 160x90, nothing for 320x180 (each layer's minimum is 30k):
        // its packets stop.
        let peer = SSRC(0x5EED_0002)
        let top = sender.simulcastSSRCs[2]
        try collector.socket.send(try RTCPPacket.serialized([
            .receiverReport(ReceiverReport(ssrc: peer)),
            .remb(ReceiverEstimatedMaximumBitrate(senderSSRC: peer, bitrate: 200_000, ssrcs: sender.simulcastSSRCs)),
        ]), toPort: sender.localPort)
        // Paused: the layer falls silent (its last frames drain first; on a loaded machine that takes a while).
        let pausedAt = try await Self.waitUntilQuiet(collector, top.rawValue)
        try await Task.sleep(for: .milliseconds(500))
        streams = collector.snapshot
        #expect(streams[top.rawValue]?.count == pausedAt, "the paused layer kept sending")
        #expect(streams[sender.simulcastSSRCs[0].rawValue].map { $0.count } ?? 0 > 0)
        let lowBefore = streams[sender.simulcastSSRCs[0].rawValue]?.count ?? 0
        try await Self.wait { (collector.snapshot[sender.simulcastSSRCs[0].rawValue]?.count ?? 0) > lowBefore + 5 }
        #expect(streams[sender.simulcastSSRCs[0].rawValue].map { $0.count } ?? 0 > 0)
        let keyframesBefore = Self.keyframes(streams[top.rawValue] ?? [])
        // The statistics show each layer: its RID, SSRC and size, and the top one paused.
        let layers = try #require(await sender.statistics().simulcastLayers)
        #expect(layers.map(\.rid) == ["q", "h", "f"])
        #expect(layers.map(\.ssrc) == sender.simulcastSSRCs.map(\.rawValue))
        #expect(layers.map { "\($0.frameWidth)x\($0.frameHeight)" } == ["80x44", "160x90", "320x180"])
        #expect(layers.map(\.active) == [true, true, false])
        #expect(layers.allSatisfy { $0.framesSent > 0 && $0.keyFramesSent >= 1 && $0.bytesSent > 0 })

        // 2 Mbit/s: the top layer comes back, starting with a keyframe.
        try collector.socket.send(try RTCPPacket.serialized([
            .receiverReport(ReceiverReport(ssrc: peer)),
            .remb(ReceiverEstimatedMaximumBitrate(senderSSRC: peer, bitrate: 2_000_000, ssrcs: sender.simulcastSSRCs)),
        ]), toPort: sender.localPort)
        try await Self.wait { (collector.snapshot[top.rawValue]?.count ?? 0) > pausedAt + 20 }
        let resumed = Array((collector.snapshot[top.rawValue] ?? []).dropFirst(pausedAt))
        #expect(Self.keyframes(streams[top.rawValue] ?? []) == keyframesBefore)
        #expect(Self.keyframes(resumed) >= 1, "the resumed layer did not start with a keyframe")
        #expect(try Self.firstPictureSize(resumed).map { $0 == (320, 180) } == true, "the resumed layer does not decode")

        // A PLI for the lowest layer: a keyframe there, none on the others.
        streams = collector.snapshot
        let counts = sender.simulcastSSRCs.map { streams[$0.rawValue]?.count ?? 0 }
        try collector.socket.send(try RTCPPacket.serialized([
            .receiverReport(ReceiverReport(ssrc: peer)),
            .pli(PictureLossIndication(senderSSRC: peer, mediaSSRC: sender.simulcastSSRCs[0])),
        ]), toPort: sender.localPort)
        try await Task.sleep(for: .milliseconds(600))
        streams = collector.snapshot
        let after = sender.simulcastSSRCs.enumerated().map { index, ssrc in
            Self.keyframes(Array((streams[ssrc.rawValue] ?? []).dropFirst(counts[index])))
        }
        #expect(after[0] >= 1 && after[1] == 0 && after[2] == 0, "keyframes after the PLI: \(after)")
        pump.stop()
        _ = try await pumped
        let stats = try await sender.finish()
        #expect(stats.pliCount == 1)
    }
}
