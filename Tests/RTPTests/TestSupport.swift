import H264
@testable import RTP

/// Decodes a hex string (spaces and newlines ignored) into bytes; test fixtures are written this way.
func hex(_ string: String) -> [UInt8] {
    let digits = string.filter { !$0.isWhitespace }
    precondition(digits.count % 2 == 0, "odd hex digit count")
    var out: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        out.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return out
}

/// A NAL unit of `size` bytes: the header byte, then a counting pattern.
func nal(_ header: UInt8, size: Int) -> [UInt8] {
    [header] + (0..<max(0, size - 1)).map { UInt8(truncatingIfNeeded: $0 + 1) }
}

/// An access unit made of the given NAL units (4-byte start codes).
func frame(_ nalUnits: [[UInt8]], timestamp: Int64 = 0) -> EncodedFrame {
    EncodedFrame(annexB: AnnexB.serialize(nalUnits), timestamp: timestamp)
}

/// A packetizer whose payload limit is exactly `maxPayload` (plain RTP, IPv4, no extension).
func packetizer(maxPayload: Int, mode: H264PacketizationMode = .nonInterleaved, firstSequenceNumber: UInt16 = 1000)
    throws -> H264Packetizer
{
    try H264Packetizer(
        ssrc: SSRC(0x1122_3344), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(firstSequenceNumber),
        mode: mode, mtu: maxPayload + 20 + 8 + 12, srtpTrailerSize: 0)
}

/// The payloads of RTP packets.
func payloads(_ packets: [[UInt8]]) throws -> [[UInt8]] {
    try packets.map { packet in
        let view = try RTPPacketView(parsing: packet)
        return Array(packet[view.payloadRange])
    }
}
