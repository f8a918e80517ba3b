import STUN
import Testing
import TURN

/// ChannelData and the TCP/TLS stream framing (RFC 8656 sections 12.4 and 12.5).
@Suite struct TURNFramingTests {
    @Test func channelDataRoundTripsAndRefusesBadHeaders() throws {
        let message = try ChannelData.message(channel: 0x4abc, payload: [1, 2, 3, 4, 5], padded: false)
        #expect(message == [0x4a, 0xbc, 0x00, 0x05, 1, 2, 3, 4, 5])
        let (channel, data) = try ChannelData.parse(message)
        #expect(channel == 0x4abc && Array(message[data]) == [1, 2, 3, 4, 5])
        // Padding after the data is allowed.
        let padded = try ChannelData.message(channel: 0x4000, payload: [9], padded: true)
        #expect(padded == [0x40, 0x00, 0x00, 0x01, 9, 0, 0, 0])
        #expect(Array(padded[try ChannelData.parse(padded).data]) == [9])
        #expect(throws: TURNError.self) { try ChannelData.parse([0x40, 0x00, 0x00]) }
        #expect(throws: TURNError.self) { try ChannelData.parse([0x50, 0x00, 0x00, 0x00]) }  // channel 0x5000
        #expect(throws: TURNError.self) { try ChannelData.parse([0x40, 0x00, 0x00, 0x02, 1]) }
        #expect(throws: TURNError.payloadTooLarge(65_536)) {
            try ChannelData.message(channel: 0x4000, payload: [UInt8](repeating: 0, count: 65_536), padded: false)
        }
        var header = [UInt8](repeating: 0, count: 4)
        try header.withUnsafeMutableBytes { try ChannelData.writeHeader(channel: 0x4001, payloadCount: 300, into: $0) }
        #expect(header == [0x40, 0x01, 0x01, 0x2c])
    }

    @Test func aStreamIsCutIntoWholeFramesWhateverTheChunks() throws {
        let stun = try STUNMessage(
            type: STUNMessageType(method: STUNMessageType.dataMethod, messageClass: .indication),
            transactionID: STUNTransactionID(high: 7, low: 9),
            attributes: [.xorPeerAddress(TransportAddress(ipString: "192.0.2.1", port: 9)!), .data([1, 2, 3])]
        ).serialized()
        let channel = try ChannelData.message(channel: 0x4000, payload: [4, 5, 6, 7, 8], padded: true)
        let frames = [stun, channel, channel, stun]
        let stream = frames.flatMap { $0 }
        for chunkSize in [1, 2, 3, 7, 19, stream.count] {
            var framer = TURNStreamFramer()
            var out: [[UInt8]] = []
            var offset = 0
            while offset < stream.count {
                framer.append(stream[offset..<min(offset + chunkSize, stream.count)])
                offset += chunkSize
                while let frame = try framer.nextFrame() { out.append(frame) }
            }
            #expect(out == frames, "chunks of \(chunkSize)")
            #expect(framer.pendingCount == 0)
        }
    }

    @Test func aStreamThatIsNeitherStaysBroken() throws {
        var framer = TURNStreamFramer()
        framer.append([0x80, 0, 0, 0])
        #expect(throws: TURNError.self) { try framer.nextFrame() }
        framer.append(try ChannelData.message(channel: 0x4000, payload: [1], padded: true))
        #expect(throws: TURNError.self) { try framer.nextFrame() }
        var misaligned = TURNStreamFramer()
        misaligned.append([0x00, 0x01, 0x00, 0x05] + [UInt8](repeating: 0, count: 30))
        #expect(throws: TURNError.self) { try misaligned.nextFrame() }
    }
}
