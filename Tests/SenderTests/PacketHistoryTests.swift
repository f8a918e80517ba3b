import H264
import RTP
import TestSupport
import Testing
@testable import Sender

@Suite struct PacketHistoryTests {
    /// The history returns each packet's plan and the frame it is written from, by sequence number (across the
    /// wrap), with its size and send time; it holds no copy of the bytes: the frame's storage is shared.
    @Test func storesAndReturnsPacketsBySequenceNumber() throws {
        var history = try PacketHistory(capacity: 16)
        let last = plannedPacket(65535, size: 100)
        let first = plannedPacket(0, size: 200)
        history.store(last.plan, of: last.frame, now: ms(0))
        history.store(first.plan, of: first.frame, now: ms(1))
        #expect(history.count == 2)
        let held = try #require(history.packet(SequenceNumber(65535), now: ms(2)))
        #expect(held.plan == last.plan)
        #expect(held.frame.bytes == last.frame.bytes)
        #expect(held.frame.bytes.withUnsafeBytes { $0.baseAddress } == last.frame.bytes.withUnsafeBytes { $0.baseAddress })
        #expect(history.size(of: SequenceNumber(65535), now: ms(2)) == 100)
        #expect(history.size(of: SequenceNumber(0), now: ms(2)) == 200)
        #expect(history.sendTime(of: SequenceNumber(0), now: ms(2)) == ms(1))
        #expect(history.size(of: SequenceNumber(1), now: ms(2)) == nil)
        #expect(history.packet(SequenceNumber(1), now: ms(2)) == nil)
        // Written from the history, the packet is the one the packetizer writes for the plan.
        let p = try packetizer()
        var buffer = [UInt8](repeating: 0xEE, count: 200)
        let size = try buffer.withUnsafeMutableBytes { try p.write(held.plan, of: held.frame, into: $0) }
        #expect(size == 100)
        #expect(Array(buffer[0..<12]) == [0x80, 0xE0, 0xFF, 0xFF, 0, 0, 0, 0, 0x11, 0x22, 0x33, 0x44])
        #expect(Array(buffer[12..<100]) == [0x41] + [UInt8](repeating: 0xFF, count: 87))
    }

    /// A slot taken again within the retention counts as an early eviction; the count stays.
    @Test func aSlotTakenAgainEvictsItsPacket() throws {
        var history = try PacketHistory(capacity: 16)
        history.store(7, size: 300, now: ms(0))
        #expect(history.count == 1)
        history.store(23, size: 50, now: ms(2))
        #expect(history.count == 1)
        #expect(history.evictedEarly == 1)
        #expect(history.packet(SequenceNumber(7), now: ms(3)) == nil)
        #expect(history.size(of: SequenceNumber(23), now: ms(3)) == 50)
    }

    @Test func slotReuseEvictsAndCountsEarlyEvictions() throws {
        var history = try PacketHistory(capacity: 16)
        for seq in UInt16(0)..<16 { history.store(seq, size: 50, now: ms(Int64(seq))) }
        history.store(16, size: 50, now: ms(16))  // reuses seq 0's slot 16 ms later
        #expect(!history.contains(SequenceNumber(0), now: ms(17)))
        #expect(history.contains(SequenceNumber(16), now: ms(17)))
        #expect(history.evictedEarly == 1)
        #expect(history.count == 16)
    }

    /// Retention max(1 s, 3 x RTT); packets older than three retentions are not returned.
    @Test func retentionFollowsRoundTripTime() throws {
        var history = try PacketHistory(capacity: 16)
        #expect(history.retention == .seconds(1))
        history.roundTripTime = .milliseconds(200)
        #expect(history.retention == .seconds(1))
        history.roundTripTime = .milliseconds(500)
        #expect(history.retention == .milliseconds(1500))
        history.store(7, size: 50, now: ms(0))
        #expect(history.contains(SequenceNumber(7), now: ms(4500)))
        #expect(history.packet(SequenceNumber(7), now: ms(4500)) != nil)
        #expect(!history.contains(SequenceNumber(7), now: ms(4501)))
        #expect(history.packet(SequenceNumber(7), now: ms(4501)) == nil)
        history.roundTripTime = nil
        #expect(!history.contains(SequenceNumber(7), now: ms(3001)))
    }

    @Test func retransmissionMarks() throws {
        var history = try PacketHistory(capacity: 16)
        history.store(3, now: ms(0))
        #expect(history.retransmissions(of: SequenceNumber(3), now: ms(1))! == (0, nil))
        let marked = history.markRetransmitted(SequenceNumber(3), now: ms(10))
        #expect(marked)
        #expect(history.retransmissions(of: SequenceNumber(3), now: ms(11))! == (1, ms(10)))
        let absent = history.markRetransmitted(SequenceNumber(4), now: ms(10))
        #expect(!absent)
        // Storing the same sequence number again (a new packet after a wrap) clears the marks.
        history.store(3, now: ms(20))
        #expect(history.retransmissions(of: SequenceNumber(3), now: ms(21))! == (0, nil))
    }

    /// A frame's storage is shared with the history while one of its packets is held, and released once the last
    /// one is gone (its slot taken again, or `removeAll`): the history keeps frames, not copies, and no longer than
    /// it must.
    @Test func framesAreReleasedWithTheirLastPacket() throws {
        var history = try PacketHistory(capacity: 16)
        var (plan, frame) = plannedPacket(0, size: 100)
        history.store(plan, of: frame, now: ms(0))
        plan.sequenceNumber = SequenceNumber(1)
        history.store(plan, of: frame, now: ms(0))
        var whileHeld = frame.bytes
        var afterOverwrite = frame.bytes
        var afterRemoval = frame.bytes
        frame = plannedPacket(2).frame  // the test's own reference goes
        #expect(!isUniquelyReferenced(&whileHeld))
        history.store(16, size: 50, now: ms(2))  // takes seq 0's slot; seq 1 still holds the frame
        #expect(!isUniquelyReferenced(&afterOverwrite))
        history.removeAll()
        #expect(history.count == 0)
        #expect(isUniquelyReferenced(&afterRemoval))
    }

    @Test func badInputs() throws {
        #expect(throws: PacketHistoryError.invalidCapacity(1000)) { try PacketHistory(capacity: 1000) }
        #expect(throws: PacketHistoryError.invalidCapacity(65536)) { try PacketHistory(capacity: 65536) }
        #expect(throws: PacketHistoryError.invalidCapacity(8)) { try PacketHistory(capacity: 8) }
        var history = try PacketHistory(capacity: 16)
        history.store(1, now: ms(0))
        history.removeAll()
        #expect(history.count == 0)
    }
}

/// Whether `bytes` held the only reference to its storage: writing to a shared array copies it first (its address
/// changes), a unique one is written in place. Either way `bytes` holds its own storage afterwards.
private func isUniquelyReferenced(_ bytes: inout [UInt8]) -> Bool {
    let before = bytes.withUnsafeBytes { $0.baseAddress }
    let after = bytes.withUnsafeMutableBytes { UnsafeRawPointer($0.baseAddress) }
    return after == before
}
