/// A fixed-capacity FIFO of paced packets, allocated once (no allocation per packet).
struct PacketRing: Sendable {
    private var slots: [PacedPacket]
    private var head = 0
    private(set) var count = 0
    private(set) var bytes = 0

    init(capacity: Int) {
        slots = [PacedPacket](
            repeating: PacedPacket(sequenceNumber: .init(0), size: 0, kind: .media), count: capacity)
    }

    var capacity: Int { slots.count }
    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == slots.count }
    var first: PacedPacket? { count > 0 ? slots[head] : nil }

    mutating func append(_ packet: PacedPacket) {
        precondition(!isFull)
        slots[(head + count) % slots.count] = packet
        count += 1
        bytes += packet.size
    }

    mutating func removeFirst() -> PacedPacket? {
        guard count > 0 else { return nil }
        let packet = slots[head]
        head = (head + 1) % slots.count
        count -= 1
        bytes -= packet.size
        return packet
    }

    mutating func removeAll() {
        head = 0
        count = 0
        bytes = 0
    }
}
