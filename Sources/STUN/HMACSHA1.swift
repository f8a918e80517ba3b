internal import COpenSSL

/// HMAC-SHA1 for MESSAGE-INTEGRITY (RFC 8489 section 14.5), computed by OpenSSL's one-shot `HMAC`.
///
/// Why OpenSSL rather than swift-crypto: the DTLS module links OpenSSL anyway, Debian ships it, and it adds nothing
/// to the build, while swift-crypto compiles its own BoringSSL (about a minute on a cold build) for one function.
enum HMACSHA1 {
    /// The length of the digest in bytes.
    static let length = 20

    /// The HMAC-SHA1 of `message` under `key`.
    /// - Parameters:
    ///   - key: The key (for ICE, the password's UTF-8 bytes).
    ///   - message: The data.
    /// - Returns: 20 bytes. The corresponding C function is `HMAC` with `EVP_sha1()`.
    static func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: length)
        var digestLength: UInt32 = 0
        // A non-nil key pointer even for an empty key: HMAC treats NULL as "reuse the previous key".
        let keyStorage = key.isEmpty ? [UInt8(0)] : key
        keyStorage.withUnsafeBufferPointer { keyBuffer in
            message.withUnsafeBufferPointer { messageBuffer in
                _ = HMAC(EVP_sha1(), keyBuffer.baseAddress, Int32(clamping: key.count), messageBuffer.baseAddress,
                         messageBuffer.count, &digest, &digestLength)
            }
        }
        return digest
    }

    /// Compares two MACs in time independent of where they differ.
    static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
