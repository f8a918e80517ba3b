import Foundation
import NIOCore
import Testing
import TestSupport
import Transport

/// The ChannelData framing of the send path (media over a TURN relay) allocates nothing per packet: the header goes in
/// headroom kept in the wire buffer, the packet is written behind it. Counted process-wide by the malloc shim
/// Tests/run.sh preloads, this suite run alone. Without SRTP: libsrtp's
/// protect allocates on its own (14 times per packet with AES_CM_128_HMAC_SHA1_80, 5 with AEAD_AES_128_GCM, through
/// OpenSSL 3), whether the packet is framed or not.
@Suite(.serialized) struct ChannelDataAllocationTests {
    @Test(.enabled(if: MallocCount.enabled, "needs LD_PRELOAD=malloc_count.so"))
    func queueingAsChannelDataAllocatesNothingPerPacket() async throws {
        let transport = try await LoopbackTransport(LoopbackTransport.configuration())
        let server = try SocketAddress(ipAddress: "127.0.0.1", port: 9)
        let allocations = try await transport.onLoop { transport -> UInt64 in
            transport.setPeer(server, channel: 0x4000)
            let payload = [UInt8](repeating: 0xAB, count: 1188)
            func queue(_ sequenceNumber: Int) throws {
                try transport.queueRTP(maximumSize: 1200) { raw in
                    raw[0] = 0x80
                    raw[1] = 96
                    raw[2] = UInt8(truncatingIfNeeded: sequenceNumber >> 8)
                    raw[3] = UInt8(truncatingIfNeeded: sequenceNumber)
                    for index in 4..<12 { raw[index] = 0 }
                    payload.withUnsafeBytes { raw.baseAddress!.advanced(by: 12).copyMemory(from: $0.baseAddress!, byteCount: 1188) }
                    return 1200
                }
                transport.discardQueued()
            }
            return try MallocCount.allocations(warmUp: 0..<200, measured: 200..<2200, queue)
        }
        #expect(allocations < 20, "\(allocations) allocations for 2,000 packets framed as ChannelData")
        await transport.close()
    }
}
