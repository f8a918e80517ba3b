import RTP
import TestSupport
import Testing
@testable import Sender

@Suite struct PacketHistoryTests {
    @Test func storesAndReturnsPacketsBySequenceNumber() throws {
        var history = try PacketHistory(capacity: 16, slotSize: 1500)
        try history.store(rtpPacket(65535, size: 100), now: ms(0))
        try history.store(rtpPacket(0, size: 200), now: ms(1))
        #expect(history.count == 2)
        #expect(history.withPacket(SequenceNumber(65535), now: ms(2)) { Array($0) } == rtpPacket(65535, size: 100))
        #expect(history.withPacket(SequenceNumber(0), now: ms(2)) { $0.count } == 200)
        #expect(history.sendTime(of: SequenceNumber(0), now: ms(2)) == ms(1))
        #expect(history.size(of: SequenceNumber(1), now: ms(2)) == nil)
    }

    /// A packet written straight into its slot (the packetizer's path) is kept like a stored one; a slot taken
    /// again within the retention counts as an early eviction; a write shorter than an RTP header leaves the slot
    /// empty and is refused.
    @Test func packetsWrittenIntoTheirSlotAreKept() throws {
        var history = try PacketHistory(capacity: 16, slotSize: 1500)
        let packet = rtpPacket(7, size: 300)
        try history.store(sequenceNumber: SequenceNumber(7), now: ms(0)) { slot in
            slot.copyBytes(from: packet)
            return packet.count
        }
        #expect(history.count == 1)
        #expect(history.withPacket(SequenceNumber(7), now: ms(1)) { Array($0) } == packet)
        try history.store(sequenceNumber: SequenceNumber(23), now: ms(2)) { slot in
            slot.copyBytes(from: rtpPacket(23, size: 50))
            return 50
        }
        #expect(history.count == 1)
        #expect(history.evictedEarly == 1)
        #expect(history.withPacket(SequenceNumber(7), now: ms(3)) { _ in true } == nil)
        #expect(throws: PacketHistoryError.notRTP(size: 5)) {
            try history.store(sequenceNumber: SequenceNumber(24), now: ms(4)) { _ in 5 }
        }
        #expect(history.count == 1)
        #expect(!history.contains(SequenceNumber(24), now: ms(5)))
    }

    @Test func slotReuseEvictsAndCountsEarlyEvictions() throws {
        var history = try PacketHistory(capacity: 16, slotSize: 1500)
        for seq in UInt16(0)..<16 { try history.store(rtpPacket(seq, size: 50), now: ms(Int64(seq))) }
        try history.store(rtpPacket(16, size: 50), now: ms(16))  // reuses seq 0's slot 16 ms later
        #expect(!history.contains(SequenceNumber(0), now: ms(17)))
        #expect(history.contains(SequenceNumber(16), now: ms(17)))
        #expect(history.evictedEarly == 1)
        #expect(history.count == 16)
    }

    /// Retention max(1 s, 3 x RTT); packets older than three retentions are not returned.
    @Test func retentionFollowsRoundTripTime() throws {
        var history = try PacketHistory(capacity: 16, slotSize: 1500)
        #expect(history.retention == .seconds(1))
        history.roundTripTime = .milliseconds(200)
        #expect(history.retention == .seconds(1))
        history.roundTripTime = .milliseconds(500)
        #expect(history.retention == .milliseconds(1500))
        try history.store(rtpPacket(7, size: 50), now: ms(0))
        #expect(history.contains(SequenceNumber(7), now: ms(4500)))
        #expect(!history.contains(SequenceNumber(7), now: ms(4501)))
        history.roundTripTime = nil
        #expect(!history.contains(SequenceNumber(7), now: ms(3001)))
    }

    @Test func retransmissionMarks() throws {
        var history = try PacketHistory(capacity: 16, slotSize: 1500)
        try history.store(rtpPacket(3), now: ms(0))
        #expect(history.retransmissions(of: SequenceNumber(3), now: ms(1))! == (0, nil))
        let marked = history.markRetransmitted(SequenceNumber(3), now: ms(10))
        #expect(marked)
        #expect(history.retransmissions(of: SequenceNumber(3), now: ms(11))! == (1, ms(10)))
        let absent = history.markRetransmitted(SequenceNumber(4), now: ms(10))
        #expect(!absent)
        // Storing the same sequence number again (a new packet after a wrap) clears the marks.
        try history.store(rtpPacket(3), now: ms(20))
        #expect(history.retransmissions(of: SequenceNumber(3), now: ms(21))! == (0, nil))
    }

    @Test func badInputs() throws {
        #expect(throws: PacketHistoryError.invalidCapacity(1000)) { try PacketHistory(capacity: 1000) }
        #expect(throws: PacketHistoryError.invalidCapacity(65536)) { try PacketHistory(capacity: 65536) }
        #expect(throws: PacketHistoryError.invalidSlotSize(11)) { try PacketHistory(capacity: 16, slotSize: 11) }
        var history = try PacketHistory(capacity: 16, slotSize: 100)
        #expect(throws: PacketHistoryError.packetTooLarge(size: 101, slotSize: 100)) {
            try history.store(rtpPacket(1, size: 101), now: ms(0))
        }
        #expect(throws: PacketHistoryError.notRTP(size: 5)) { try history.store([1, 2, 3, 4, 5], now: ms(0)) }
        history.removeAll()
        #expect(history.count == 0)
    }
}
