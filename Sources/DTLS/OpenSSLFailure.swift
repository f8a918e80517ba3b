internal import COpenSSL

/// What OpenSSL reported when a call failed: the call, `SSL_get_error`'s code when there is one, and the first entry
/// of the thread's error queue (packed code and text, as `ERR_error_string_n` writes it). Never holds key material.
public struct OpenSSLFailure: Hashable, Sendable, CustomStringConvertible {
    /// The OpenSSL function that failed, e.g. `SSL_do_handshake`.
    public var function: String
    /// `SSL_get_error`'s result (`SSL_ERROR_SSL` = 1, `SSL_ERROR_SYSCALL` = 5, ...), or 0 when not an SSL I/O call.
    public var sslError: Int32
    /// The packed error code from `ERR_get_error` (0 when the queue was empty).
    public var code: UInt
    /// The text of `code`, e.g. `error:0A000086:SSL routines::certificate verify failed`.
    public var reason: String

    public var description: String {
        let ssl = sslError == 0 ? "" : " (SSL_get_error \(sslError))"
        return "\(function) failed\(ssl): \(reason.isEmpty ? "no OpenSSL error queued" : reason)"
    }

    /// Reads and clears the calling thread's OpenSSL error queue: the one mapping from OpenSSL status to Swift.
    /// - Parameters:
    ///   - function: The call that failed.
    ///   - sslError: `SSL_get_error`'s code, if the call was SSL I/O.
    /// - Returns: The failure.
    static func drain(_ function: String, sslError: Int32 = 0) -> OpenSSLFailure {
        let code = ERR_get_error()
        var text = [CChar](repeating: 0, count: 256)
        if code != 0 { ERR_error_string_n(code, &text, text.count) }
        ERR_clear_error()
        let reason = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return OpenSSLFailure(function: function, sslError: sslError, code: UInt(code), reason: reason)
    }
}
