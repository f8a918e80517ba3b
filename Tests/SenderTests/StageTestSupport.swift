import MediaTime
import RTP
@testable import Sender

/// An RTP packet of `size` bytes with sequence number `sequenceNumber` (PT 96, SSRC 0x11223344, payload filled with
/// the low byte of the sequence number).
func rtpPacket(_ sequenceNumber: UInt16, size: Int = 1200) -> [UInt8] {
    var packet = [UInt8](repeating: UInt8(truncatingIfNeeded: sequenceNumber), count: size)
    packet[0] = 0x80
    packet[1] = 96
    packet[2] = UInt8(sequenceNumber >> 8)
    packet[3] = UInt8(truncatingIfNeeded: sequenceNumber)
    for i in 4..<8 { packet[i] = 0 }
    packet[8] = 0x11; packet[9] = 0x22; packet[10] = 0x33; packet[11] = 0x44
    return packet
}
