#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The process-wide allocation counter of Tests/Benchmarks/C/malloc_count.c, for the tests that the send and receive
/// paths allocate nothing per packet. It is there only when that shim is preloaded, so Tests/run.sh runs those suites
/// alone, as `RTC_H264_REQUIRE_MALLOC_COUNT=1 LD_PRELOAD=.build/malloc_count.so swift test --filter ...`.
public enum MallocCount {
    /// The counter (allocations so far), when the shim is preloaded.
    public static let total: (@convention(c) () -> UInt64)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_count_total") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) () -> UInt64).self)
        #else
        return nil
        #endif
    }()

    /// Set by Tests/run.sh: the counter must be there (a missing preload fails instead of skipping).
    public static let required = ProcessInfo.processInfo.environment["RTC_H264_REQUIRE_MALLOC_COUNT"] == "1"

    /// Whether an allocation test runs: the counter is there, or it is required (its absence then fails the test).
    public static var enabled: Bool { total != nil || required }

    /// The counter is required but not preloaded.
    public struct NotPreloaded: Error, CustomStringConvertible {
        public var description: String {
            "RTC_H264_REQUIRE_MALLOC_COUNT is set but malloc_count.so is not preloaded"
        }
    }

    /// The counter.
    /// - Throws: `NotPreloaded` when the shim is not preloaded.
    public static func counter() throws -> @convention(c) () -> UInt64 {
        guard let total else { throw NotPreloaded() }
        return total
    }

    /// The allocations of `iterate` over `measured`, after it ran over `warmUp` (every slot and queue touched once).
    /// - Throws: `NotPreloaded` when the counter is missing, or what `iterate` throws.
    public static func allocations(
        warmUp: Range<Int>, measured: Range<Int>, _ iterate: (Int) throws -> Void
    ) throws -> UInt64 {
        let count = try counter()
        for i in warmUp { try iterate(i) }
        let before = count()
        for i in measured { try iterate(i) }
        return count() - before
    }
}
