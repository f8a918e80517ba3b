/// A certificate fingerprint as SDP carries it: `a=fingerprint:sha-256 AB:CD:...` (RFC 8122 section 5).
public struct DTLSFingerprint: Hashable, Sendable, CustomStringConvertible {
    /// The hash function's name as RFC 8122 spells it, lower case: `sha-256`, `sha-1`, `sha-384`, `sha-512`.
    public var hashFunction: String
    /// The digest.
    public var digest: [UInt8]

    /// Hash functions accepted, with their OpenSSL digest names and lengths. SHA-256 is what browsers send
    /// (RFC 8827 section 6.5 requires SHA-256 support).
    static let hashFunctions: [String: (openSSLName: String, length: Int)] = [
        "sha-1": ("SHA1", 20), "sha-224": ("SHA224", 28), "sha-256": ("SHA256", 32), "sha-384": ("SHA384", 48),
        "sha-512": ("SHA512", 64),
    ]

    /// Creates a fingerprint.
    /// - Parameters:
    ///   - hashFunction: `sha-256` and the like (case-insensitive).
    ///   - digest: The digest; its length must match the function.
    /// - Throws: `DTLSError.unsupportedHashFunction` or `.invalidFingerprint`.
    public init(hashFunction: String, digest: [UInt8]) throws(DTLSError) {
        let name = hashFunction.lowercased()
        guard let function = Self.hashFunctions[name] else { throw .unsupportedHashFunction(hashFunction) }
        guard digest.count == function.length else {
            throw .invalidFingerprint("\(name) digest of \(digest.count) bytes, expected \(function.length)")
        }
        self.hashFunction = name
        self.digest = digest
    }

    /// Parses the value of an `a=fingerprint` attribute: a hash function, a space, and upper- or lower-case hex
    /// pairs separated by colons.
    /// - Parameters:
    ///   - sdpValue: e.g. `sha-256 4A:AD:B9:...`.
    /// - Throws: `DTLSError.invalidFingerprint` or `.unsupportedHashFunction`.
    public init(sdpValue: String) throws(DTLSError) {
        let parts = sdpValue.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2 else { throw .invalidFingerprint("expected '<hash-function> <hex pairs>'") }
        var digest: [UInt8] = []
        for pair in parts[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.count == 2, let byte = UInt8(pair, radix: 16) else {
                throw .invalidFingerprint("'\(pair)' is not a hex pair")
            }
            digest.append(byte)
        }
        try self.init(hashFunction: String(parts[0]), digest: digest)
    }

    /// The `a=fingerprint` value: `sha-256 AB:CD:...` with upper-case hex (RFC 8122 section 5).
    public var sdpValue: String {
        let digits = Array("0123456789ABCDEF")
        let hex = digest.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0xF)]]) }.joined(separator: ":")
        return "\(hashFunction) \(hex)"
    }

    /// Fingerprints are public values; they are printed as in SDP.
    public var description: String { sdpValue }

    /// The OpenSSL digest name for `EVP_get_digestbyname`.
    var openSSLDigestName: String { Self.hashFunctions[hashFunction]!.openSSLName }  // checked in init
}
