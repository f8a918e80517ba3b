internal import COpenSSL

/// A TURN user's long-term credential (RFC 8489 section 9.2): a username and a password the server knows, from which
/// MESSAGE-INTEGRITY's key is derived for each realm.
///
/// The password is never printed: `description` names the user only.
public struct LongTermCredential: Sendable, Hashable, CustomStringConvertible {
    /// The username, sent in USERNAME.
    public var username: String
    /// The password; only its digest leaves this value.
    public var password: String

    /// Creates a credential.
    /// - Parameters:
    ///   - username: The username.
    ///   - password: The password (already in the form the server stores: this implementation applies no SASLprep
    ///     or OpaqueString profile, which leaves ASCII passwords unchanged).
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// The MESSAGE-INTEGRITY key for a realm: MD5(username ":" realm ":" password) (RFC 8489 section 9.2.2).
    /// - Parameters:
    ///   - realm: The realm the server named in its 401.
    /// - Returns: 16 bytes. The corresponding C function is OpenSSL's `EVP_Digest` with `EVP_md5()`.
    public func key(realm: String) -> [UInt8] {
        let input = Array("\(username):\(realm):\(password)".utf8)
        var digest = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 0
        input.withUnsafeBufferPointer { buffer in
            _ = EVP_Digest(buffer.baseAddress, buffer.count, &digest, &length, EVP_md5(), nil)
        }
        return digest
    }

    /// `user "NAME"`: never the password.
    public var description: String { "user \"\(username)\"" }
}
