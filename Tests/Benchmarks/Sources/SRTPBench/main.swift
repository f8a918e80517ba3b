// SRTPBench: packetize + protect throughput of our SRTP layer, side by side with C/srtp_loop.c.
//
// Two forms of the packetize step: a hand-written 12-byte RTP header + 1188-byte payload (mirrored byte for byte in
// C/srtp_loop.c), and the real RFC 6184 packetizer (`H264Packetizer`, FU-A fragments of 1200-byte packets from one
// large IDR NAL unit, the way a 720p keyframe is sent) writing into its reusable `PacketBuffer`. Each packet is then
// protected in place. Prints lines
//   RESULT Swift <label> <packets/s> <allocations/packet or n/a>
// Allocations are counted when Tests/Benchmarks/C/malloc_count.so is preloaded (see run-srtp.sh).
// Usage: SRTPBench [packets]   (default 100000)
#if canImport(Glibc)
import Glibc
#endif
import H264
import RTP
import SRTP

/// RFC 3550 section 5.1 fixed header, no CSRCs or extension.
let rtpHeaderLength = 12
/// A typical video packet: header + payload within a 1200-byte budget.
let rtpPacketLength = 1200
let warmupPackets = 1000
let repetitions = 3
let ssrc: UInt32 = 0x1234_5678

/// The packetize step (placeholder until the RTP packetizer is merged): writes the RTP header and payload at the
/// start of `buffer` and returns the packet length. Must match `packetize` in C/srtp_loop.c byte for byte.
@inline(never)
func packetize(into buffer: UnsafeMutableRawBufferPointer, sequence: UInt16, timestamp: UInt32,
               payload: UnsafeRawBufferPointer) -> Int {
    buffer[0] = 0x80
    buffer[1] = 96
    buffer[2] = UInt8(truncatingIfNeeded: sequence >> 8)
    buffer[3] = UInt8(truncatingIfNeeded: sequence)
    buffer[4] = UInt8(truncatingIfNeeded: timestamp >> 24)
    buffer[5] = UInt8(truncatingIfNeeded: timestamp >> 16)
    buffer[6] = UInt8(truncatingIfNeeded: timestamp >> 8)
    buffer[7] = UInt8(truncatingIfNeeded: timestamp)
    buffer[8] = UInt8(truncatingIfNeeded: ssrc >> 24)
    buffer[9] = UInt8(truncatingIfNeeded: ssrc >> 16)
    buffer[10] = UInt8(truncatingIfNeeded: ssrc >> 8)
    buffer[11] = UInt8(truncatingIfNeeded: ssrc)
    UnsafeMutableRawBufferPointer(rebasing: buffer[rtpHeaderLength...]).copyMemory(from: payload)
    return rtpHeaderLength + payload.count
}

/// Reads the preloaded allocation counter, or `nil` when malloc_count.so is not loaded.
let mallocCount: (@convention(c) () -> UInt64)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_count_total") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) () -> UInt64).self)
}()

func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

enum BufferForm: String {
    case array = "inout[UInt8]"
    case raw = "UnsafeMutableRawBufferPointer"
}

/// The benchmark's mutable state, passed `inout` so that the hot loop has no captured (boxed) variables.
struct LoopState {
    var array: [UInt8]
    let raw: UnsafeMutableRawBufferPointer
    let payload: UnsafeRawBufferPointer
    var sequence = 0
    var checksum: UInt32 = 0
}

/// Packetizes and protects `count` packets, one at a time, in the same buffer.
@inline(never)
func protectLoop(_ session: SRTPSession, form: BufferForm, count: Int, state: inout LoopState) throws {
    for _ in 0..<count {
        let sequence = UInt16(truncatingIfNeeded: state.sequence)
        let timestamp = UInt32(truncatingIfNeeded: state.sequence / 4 * 3000)
        switch form {
        case .array:
            let payload = state.payload
            let length = state.array.withUnsafeMutableBytes { bytes in
                packetize(into: bytes, sequence: sequence, timestamp: timestamp, payload: payload)
            }
            let protectedLength = try session.protectRTP(&state.array, length: length)
            state.checksum &+= UInt32(state.array[protectedLength - 1])
        case .raw:
            let length = packetize(into: state.raw, sequence: sequence, timestamp: timestamp, payload: state.payload)
            let protectedLength = try session.protectRTP(state.raw, length: length)
            state.checksum &+= UInt32(state.raw[protectedLength - 1])
        }
        state.sequence += 1
    }
}

func run(suite: SRTPSuite, form: BufferForm, packets: Int) throws {
    let key = try SRTPMasterKey(keyAndSalt: (0..<suite.keyAndSaltLength).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) },
                                for: suite)
    let payload = UnsafeMutableRawBufferPointer.allocate(byteCount: rtpPacketLength - rtpHeaderLength, alignment: 16)
    defer { payload.deallocate() }
    for index in 0..<payload.count { payload[index] = UInt8(truncatingIfNeeded: index) }
    let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: rtpPacketLength + SRTPSuite.maxRTPTrailer,
                                                     alignment: 16)
    defer { raw.deallocate() }
    var state = LoopState(array: [UInt8](repeating: 0, count: rtpPacketLength + SRTPSuite.maxRTPTrailer), raw: raw,
                          payload: UnsafeRawBufferPointer(payload))
    var best = 0.0
    var allocationsPerPacket: Double?

    for _ in 0..<repetitions {
        let session = try SRTPSession(direction: .outbound, suite: suite, key: key)
        try protectLoop(session, form: form, count: warmupPackets, state: &state)
        let allocationsBefore = mallocCount?() ?? 0
        let start = monotonicSeconds()
        try protectLoop(session, form: form, count: packets, state: &state)
        let elapsed = monotonicSeconds() - start
        let allocationsAfter = mallocCount?() ?? 0
        if mallocCount != nil { allocationsPerPacket = Double(allocationsAfter - allocationsBefore) / Double(packets) }
        best = max(best, Double(packets) / elapsed)
    }
    let allocations = allocationsPerPacket.map { format3($0) } ?? "n/a"
    print("RESULT Swift \(suite.sdpName) \(Int(best)) \(allocations) (\(form.rawValue), checksum \(state.checksum))")
}

func format3(_ value: Double) -> String {
    let scaled = (value * 1000).rounded()
    let whole = Int(scaled) / 1000
    let fraction = Int(scaled) % 1000
    let padded = String(fraction)
    return "\(whole)." + String(repeating: "0", count: 3 - padded.count) + padded
}

/// The send path as the sender runs it: the RFC 6184 packetizer writes each FU-A packet into one reusable buffer and
/// SRTP protects it there in place. The MTU is chosen so that every RTP packet is 1200 bytes, like the C loop's.
func runPacketizer(suite: SRTPSuite, packets: Int) throws {
    let key = try SRTPMasterKey(keyAndSalt: (0..<suite.keyAndSaltLength).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) },
                                for: suite)
    let trailer = suite.rtpTrailerLength
    let mtu = rtpPacketLength + 20 + 8 + trailer  // IPv4 + UDP + SRTP tag around a 1200-byte RTP packet
    var packetizer = try H264Packetizer(ssrc: SSRC(ssrc), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(1),
                                        mtu: mtu, srtpTrailerSize: trailer)
    // One IDR NAL unit that fragments into `perFrame` FU-A packets of 1200 bytes.
    let perFrame = 100
    let fragment = packetizer.maxPayloadSize - 2
    let nal = [UInt8(0x65)] + (0..<(perFrame * fragment - 1)).map { UInt8(truncatingIfNeeded: $0 | 1) }
    let frame = EncodedFrame(annexB: AnnexB.startCode + nal, timestamp: 0)
    var buffer = packetizer.makePacketBuffer()
    var best = 0.0
    var allocationsPerPacket: Double?
    var checksum: UInt32 = 0
    var frameIndex: UInt32 = 0
    for _ in 0..<repetitions {
        let session = try SRTPSession(direction: .outbound, suite: suite, key: key)
        func sendFrames(_ count: Int) throws -> Int {
            var sent = 0
            for _ in 0..<count {
                sent += try packetizer.packetize(frame, timestamp: RTPTimestamp(frameIndex &* 3000), into: &buffer) { packet in
                    try packet.withUnsafeMutableBytes { raw, length in
                        length = try session.protectRTP(raw, length: length)
                        checksum &+= UInt32(raw[length - 1])
                    }
                }
                frameIndex &+= 1
            }
            return sent
        }
        _ = try sendFrames(max(1, warmupPackets / perFrame))
        let allocationsBefore = mallocCount?() ?? 0
        let start = monotonicSeconds()
        let sent = try sendFrames(max(1, packets / perFrame))
        let elapsed = monotonicSeconds() - start
        let allocationsAfter = mallocCount?() ?? 0
        if mallocCount != nil { allocationsPerPacket = Double(allocationsAfter - allocationsBefore) / Double(sent) }
        best = max(best, Double(sent) / elapsed)
    }
    let allocations = allocationsPerPacket.map { format3($0) } ?? "n/a"
    print("RESULT Swift \(suite.sdpName) \(Int(best)) \(allocations) (H264Packetizer, checksum \(checksum))")
}

let packets = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 100_000 : 100_000
try run(suite: .aesCM128HMACSHA1_80, form: .array, packets: packets)
try run(suite: .aesCM128HMACSHA1_80, form: .raw, packets: packets)
try run(suite: .aeadAES128GCM, form: .array, packets: packets)
try run(suite: .aeadAES128GCM, form: .raw, packets: packets)
try runPacketizer(suite: .aesCM128HMACSHA1_80, packets: packets)
try runPacketizer(suite: .aeadAES128GCM, packets: packets)
