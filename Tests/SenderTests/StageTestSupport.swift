import H264
import MediaTime
import RTP
@testable import Sender

/// A frame of one non-IDR NAL unit and the plan of its single packet, `size` bytes on the wire (a 12-byte header, PT
/// 96, SSRC 0x11223344 as written by `packetizer()`; the NAL unit's data is the low byte of the sequence number): what
/// the sender's history records for a packet of that size.
func plannedPacket(_ sequenceNumber: UInt16, size: Int = 1200) -> (plan: H264PacketPlan, frame: EncodedFrame) {
    let payloadSize = max(1, size - RTPHeader.fixedSize)
    let header: UInt8 = 0x41
    let bytes = AnnexB.startCode + [header]
        + [UInt8](repeating: UInt8(truncatingIfNeeded: sequenceNumber), count: payloadSize - 1)
    let nal = NALUnitLocation(offset: AnnexB.startCode.count, length: payloadSize, header: NALUnitHeader(byte: header))
    let frame = EncodedFrame(bytes: bytes, nalUnits: [nal], isKeyframe: false, timestamp: 0)
    let plan = H264PacketPlan(
        sequenceNumber: SequenceNumber(sequenceNumber), timestamp: RTPTimestamp(0),
        payload: H264PayloadDescriptor(kind: .single(index: 0), size: payloadSize, isLastOfAccessUnit: true),
        headerSize: RTPHeader.fixedSize)
    return (plan, frame)
}

/// The packetizer that writes `plannedPacket`'s packets (PT 96, SSRC 0x11223344, no extension).
func packetizer() throws -> H264Packetizer {
    try H264Packetizer(ssrc: SSRC(0x1122_3344), payloadType: PayloadType(96), firstSequenceNumber: SequenceNumber(0))
}

extension PacketHistory {
    /// Records `plannedPacket(sequenceNumber, size: size)` as sent at `now`.
    mutating func store(_ sequenceNumber: UInt16, size: Int = 1200, now: MonotonicTime) {
        let (plan, frame) = plannedPacket(sequenceNumber, size: size)
        store(plan, of: frame, now: now)
    }
}
