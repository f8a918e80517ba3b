/// The short-term credentials of one ICE agent: `a=ice-ufrag` and `a=ice-pwd` (RFC 8839 section 5.4).
///
/// A binding request is authenticated with the receiver's password and names both agents in USERNAME as
/// `receiverUfrag:senderUfrag` (RFC 8445 7.2.2). The password is never printed.
public struct ICECredentials: Hashable, Sendable, CustomStringConvertible {
    /// The username fragment, 4 to 256 ice-chars.
    public var ufrag: String
    /// The password, 22 to 256 ice-chars.
    public var password: String

    /// The characters `ice-char` allows: ALPHA / DIGIT / "+" / "/" (RFC 8839 section 5.4).
    static let iceChars = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    /// The characters generated credentials use: letters and digits, no "+" or "/" (as Pion's, which draws letters
    /// only). Some peers mishandle them: simple-whip-server 1.1 builds a regular expression from the offer's
    /// `a=ice-pwd` line for an ICE restart and answers HTTP 500 when the password holds "+" in the wrong place
    /// (seen in CI: one restart in a few failed that way).
    static let generatedChars = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    /// Lengths RFC 8839 5.4 allows.
    public static let ufragLengths = 4...256
    /// Lengths RFC 8839 5.4 allows.
    public static let passwordLengths = 22...256
    /// The ufrag length generated: 8 characters of 62, 47 bits (more than the 24 bits RFC 8445 requires).
    static let generatedUfragLength = 8
    /// The password length generated: 24 characters of 62, 142 bits (at least 128 bits, RFC 8445 5.3).
    static let generatedPasswordLength = 24

    /// Creates credentials, checking the lengths and characters RFC 8839 allows.
    /// - Parameters:
    ///   - ufrag: The username fragment.
    ///   - password: The password.
    /// - Throws: `ICEError.invalidCredentials` naming which part is wrong.
    public init(ufrag: String, password: String) throws(ICEError) {
        guard Self.ufragLengths.contains(ufrag.count), ufrag.allSatisfy(Self.iceChars.contains) else {
            throw .invalidCredentials("ice-ufrag must be 4-256 characters of [A-Za-z0-9+/]")
        }
        guard Self.passwordLengths.contains(password.count), password.allSatisfy(Self.iceChars.contains) else {
            throw .invalidCredentials("ice-pwd must be 22-256 characters of [A-Za-z0-9+/]")
        }
        self.ufrag = ufrag
        self.password = password
    }

    /// Fresh random credentials.
    /// - Parameters:
    ///   - generator: The random source; `SystemRandomNumberGenerator` outside tests.
    /// - Returns: An 8-character ufrag and a 24-character password.
    public static func random(using generator: inout some RandomNumberGenerator) -> ICECredentials {
        func draw(_ count: Int) -> String {
            String((0..<count).map { _ in generatedChars[Int.random(in: 0..<generatedChars.count, using: &generator)] })
        }
        return try! ICECredentials(ufrag: draw(generatedUfragLength), password: draw(generatedPasswordLength))  // valid by construction
    }

    /// Fresh random credentials from the system's secure generator.
    public static func random() -> ICECredentials {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// The MESSAGE-INTEGRITY key: the password's UTF-8 bytes (RFC 8489 9.2.2; ice-chars need no OpaqueString
    /// preparation).
    var integrityKey: [UInt8] { Array(password.utf8) }

    /// `ufrag=... password=<redacted>`.
    public var description: String { "ufrag=\(ufrag) password=<redacted>" }
}
