import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Ports for the processes a test starts on fixed addresses (`receive --listen`, `serve --whep`, a relay, coturn).
///
/// The suites run in parallel in one process, so two draws at random could name the same port before either binds it,
/// and a port in the kernel's ephemeral range could be taken by any socket bound to port 0 between the check and the
/// bind (a clean-clone CI run failed that way: a receiver decrypted nothing because another suite's stream reached its
/// port). The ports here come from one counter below the ephemeral range, so no two draws in a process share a port,
/// and each is checked free for UDP and TCP on 127.0.0.1 (another process may hold it).
public enum TestPorts {
    /// The first port handed out from.
    static let low = 20_000
    /// One past the last: the start of the kernel's ephemeral range, at most 32768 (Linux's default).
    static let high: Int = {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let start = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { Int($0) }
        guard let start, start > low + 1_000 else { return 32_768 }
        return min(start, 32_768)
    }()
    /// The next candidate, from an even place drawn once (two test processes seldom start at the same port).
    private static let next = Mutex(low + 2 * Int.random(in: 0..<((high - low) / 2)))

    /// `count` consecutive ports, the first even, that no earlier call in this process returned and that are free for
    /// UDP and TCP on 127.0.0.1 now (a receiver's RTP and RTCP; a server and its control endpoint).
    /// - Parameter count: how many consecutive ports, 1-16.
    /// - Returns: the first of them.
    public static func reserve(_ count: Int = 2) -> Int {
        let span = max(2, (min(max(count, 1), 16) + 1) & ~1)
        var fallback = low
        for _ in 0..<((high - low) / span) {
            let first = next.withLock { value -> Int in
                if value + span > high { value = low }
                let first = value
                value += span
                return first
            }
            fallback = first
            if (0..<count).allSatisfy({ isFree(first + $0) }) { return first }
        }
        return fallback
    }

    /// Whether `port` can be bound now for UDP and for TCP on 127.0.0.1.
    static func isFree(_ port: Int) -> Bool {
        for type in [Int32(SOCK_DGRAM.rawValue), Int32(SOCK_STREAM.rawValue)] {
            guard let (descriptor, _) = try? boundSocket(type: type, host: "127.0.0.1", port: port) else { return false }
            Glibc.close(descriptor)
        }
        return true
    }
}
