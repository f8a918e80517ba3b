#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An SRTP master key followed by its master salt, as libsrtp and SDES carry them.
///
/// The bytes are never printed: `description`, `debugDescription` and the mirror used by `dump` show only
/// `<redacted N bytes>`. The storage is wiped when the last copy goes away. See Docs/Keys.md for the handling rules.
public struct SRTPMasterKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// Immutable, wiped on release; shared between copies of the key.
    // @unchecked: the bytes are written once in init and only read afterwards, so sharing across threads is safe.
    private final class Storage: @unchecked Sendable {
        let bytes: UnsafeMutableRawBufferPointer

        init(copying source: some Collection<UInt8>) {
            bytes = .allocate(byteCount: source.count, alignment: 1)
            _ = bytes.initializeMemory(as: UInt8.self, from: source)
        }

        init(count: Int, filling fill: (UnsafeMutableRawBufferPointer) -> Void) {
            bytes = .allocate(byteCount: count, alignment: 1)
            bytes.initializeMemory(as: UInt8.self, repeating: 0)
            fill(bytes)
        }

        deinit {
            if let base = bytes.baseAddress {
                #if canImport(Glibc)
                explicit_bzero(base, bytes.count)
                #else
                _ = memset_s(base, bytes.count, 0, bytes.count)
                #endif
            }
            bytes.deallocate()
        }
    }

    private let storage: Storage

    /// The number of bytes of key and salt together.
    public var count: Int { storage.bytes.count }

    /// Creates a key from the concatenated master key and salt, checking the length the suite needs.
    ///
    /// - Parameters:
    ///   - keyAndSalt: The master key immediately followed by the master salt.
    ///   - suite: The suite the key is for; fixes the expected length (`suite.keyAndSaltLength`).
    /// - Throws: `SRTPKeyError.invalidLength` when the length does not match the suite.
    public init(keyAndSalt: some Collection<UInt8>, for suite: SRTPSuite) throws(SRTPKeyError) {
        guard keyAndSalt.count == suite.keyAndSaltLength else {
            throw .invalidLength(suite: suite, expected: suite.keyAndSaltLength, actual: keyAndSalt.count)
        }
        storage = Storage(copying: keyAndSalt)
    }

    /// Creates a key from a separate master key and master salt.
    ///
    /// - Parameters:
    ///   - key: The master key (16 or 32 bytes).
    ///   - salt: The master salt (14 bytes for AES-CM, 12 for AEAD).
    ///   - suite: The suite the key is for.
    /// - Throws: `SRTPKeyError.invalidLength` when either part does not have the suite's length.
    public init(key: some Collection<UInt8>, salt: some Collection<UInt8>, for suite: SRTPSuite) throws(SRTPKeyError) {
        guard key.count == suite.masterKeyLength, salt.count == suite.masterSaltLength else {
            throw .invalidLength(suite: suite, expected: suite.keyAndSaltLength, actual: key.count + salt.count)
        }
        storage = Storage(count: key.count + salt.count) { buffer in
            buffer.copyBytes(from: key)
            UnsafeMutableRawBufferPointer(rebasing: buffer[key.count...]).copyBytes(from: salt)
        }
    }

    /// Generates a fresh random key and salt for the suite.
    ///
    /// - Parameters:
    ///   - suite: The suite the key is for.
    ///   - generator: The random source; use `SystemRandomNumberGenerator` (the default overload) outside tests.
    /// - Returns: A key of `suite.keyAndSaltLength` random bytes.
    public static func random(for suite: SRTPSuite, using generator: inout some RandomNumberGenerator) -> SRTPMasterKey {
        SRTPMasterKey(storage: Storage(count: suite.keyAndSaltLength) { buffer in
            var offset = 0
            while offset < buffer.count {
                var word = generator.next()
                let chunk = Swift.min(MemoryLayout<UInt64>.size, buffer.count - offset)
                for index in 0..<chunk {
                    buffer[offset + index] = UInt8(truncatingIfNeeded: word >> UInt64(8 * index))
                }
                word = 0
                offset += chunk
            }
        })
    }

    /// Generates a fresh random key and salt for the suite from the system's cryptographically secure generator.
    ///
    /// - Parameters:
    ///   - suite: The suite the key is for.
    /// - Returns: A key of `suite.keyAndSaltLength` bytes from `SystemRandomNumberGenerator`.
    public static func random(for suite: SRTPSuite) -> SRTPMasterKey {
        var generator = SystemRandomNumberGenerator()
        return random(for: suite, using: &generator)
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// Calls `body` with the key and salt bytes. Do not copy them out of the closure.
    ///
    /// - Parameters:
    ///   - body: A closure reading the bytes; the pointer is valid only during the call.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withExtendedLifetime(storage) { () throws(Failure) -> Result in
            try body(UnsafeRawBufferPointer(storage.bytes))
        }
    }

    /// Compares two keys in time independent of where they differ.
    ///
    /// - Parameters:
    ///   - lhs: A key.
    ///   - rhs: Another key.
    /// - Returns: Whether both hold the same bytes.
    public static func == (lhs: SRTPMasterKey, rhs: SRTPMasterKey) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<lhs.count {
            difference |= lhs.storage.bytes[index] ^ rhs.storage.bytes[index]
        }
        return difference == 0
    }

    /// `<redacted N bytes>`: the key is never printed.
    public var description: String { "<redacted \(count) bytes>" }

    /// `<redacted N bytes>`: the key is never printed, not even in debug output.
    public var debugDescription: String { description }

    /// A mirror with no children, so that `dump` and reflection never reach the bytes.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
