import Testing

/// The congestion targets at the level of the pure stages (no encoder: frames are exactly target / 30).
@Suite struct BottleneckLinkTests {
    /// A 1 Mbit/s bottleneck, 30-packet queue, start at 1.5 Mbit/s: the target settles between 0.8 and 1.0 Mbit/s
    /// within 10 s, and loss stays under 2 % after that.
    @Test func settlesUnderAOneMegabitBottleneck() throws {
        let samples = try BottleneckLinkSimulation(capacity: { _ in 1_000_000 }).run(seconds: 60)
        let settled = samples.filter { $0.ms > 10_000 }
        let sent = settled.reduce(0) { $0 + $1.sent }
        let dropped = settled.reduce(0) { $0 + $1.dropped }
        let targets = settled.map(\.target)
        print("1 Mbit/s, 30 packets, from 1.5 Mbit/s: targets per second \(samples.map { $0.target / 1000 }) kbit/s ...; "
            + "after 10 s \(targets.min()! / 1000)...\(targets.max()! / 1000) kbit/s, loss \(dropped)/\(sent)")
        #expect(targets.min()! >= 800_000)
        #expect(targets.max()! <= 1_000_000)
        #expect(Double(dropped) / Double(sent) < 0.02)
    }

    /// Capacity 2 Mbit/s -> 500 kbit/s at 20 s -> 2 Mbit/s at 40 s: the target follows within 5 s down, 20 s up.
    @Test func followsCapacitySteps() throws {
        let samples = try BottleneckLinkSimulation(
            capacity: { $0 < 20_000 || $0 >= 40_000 ? 2_000_000 : 500_000 }, queueLimit: 50).run(seconds: 60)
        let down = samples.first { $0.ms > 20_000 && $0.target <= 500_000 }?.ms
        let up = samples.first { $0.ms > 40_000 && $0.target >= 1_600_000 }?.ms
        print("steps 2M -> 500k -> 2M: targets \(samples.map { $0.target / 1000 }) kbit/s; down at \(down ?? -1) ms, "
            + "80 % up at \(up ?? -1) ms")
        #expect(down != nil && down! <= 25_000)
        #expect(up != nil && up! <= 60_000)
    }
}
