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

    /// An even port P such that no earlier call in this process returned P, and P and P + 1 are free for UDP and TCP
    /// on 127.0.0.1 now (a receiver's RTP and RTCP; a server and its control endpoint).
    /// - Returns: P (after a whole round of the range without a free pair, the last one tried).
    public static func reserve() -> Int {
        var candidate = low
        for _ in 0..<((high - low) / 2) {
            candidate = next.withLock { value -> Int in
                if value + 2 > high { value = low }
                defer { value += 2 }
                return value
            }
            if isFree(candidate), isFree(candidate + 1) { return candidate }
        }
        return candidate
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
