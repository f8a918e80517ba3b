import Foundation

/// The `curl` command line tool as an HTTPS client for the servers' TLS tests: it verifies the chain against a CA
/// file and the host name, as a browser would (Foundation's URLSession on Linux cannot be given a CA file).
public enum Curl {
    /// Debian's curl.
    public static let path = "/usr/bin/curl"

    /// Whether curl is installed.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// What one run gave.
    public struct Result: Sendable {
        /// curl's exit code (0: a reply was received; 60: the certificate did not verify; 35: the handshake failed).
        public var exitCode: Int32
        /// The HTTP status, 0 without a reply.
        public var status: Int
        /// The reply body.
        public var body: String
        /// curl's error message.
        public var stderr: String
    }

    /// Sends one request.
    /// - Parameters:
    ///   - url: the URL.
    ///   - caFile: the PEM CA file to trust (only it), or nil for the system's trust store.
    ///   - method: the method.
    ///   - headers: extra headers.
    ///   - body: the body, if any.
    ///   - maximumSeconds: how long curl may take in all (`--max-time`).
    /// - Returns: the result (never throws for an HTTP or TLS failure: see `exitCode`).
    /// - Throws: `CurlMissing` (naming the install step) when curl is not installed; the error starting it.
    ///
    /// curl is a `ChildProcess`: waiting for it holds no thread of the cooperative pool (two on a 2-core machine),
    /// which the server under test needs to answer.
    public static func request(
        _ url: String, caFile: String?, method: String = "GET", headers: [String: String] = [:], body: String? = nil,
        maximumSeconds: Int = 10
    ) async throws -> Result {
        guard isAvailable else { throw CurlMissing() }
        let marker = "\n--curl-status:"
        var arguments = ["--silent", "--show-error", "--max-time", "\(maximumSeconds)", "--request", method,
                         "--write-out", "\(marker)%{http_code}", "--output", "-"]
        if let caFile { arguments += ["--cacert", caFile] }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { arguments += ["--header", "\(name): \(value)"] }
        if let body { arguments += ["--data-binary", body] }
        arguments.append(url)
        let run = try await ChildProcess.run(URL(fileURLWithPath: path), arguments)
        let stdout = run.stdout
        var replyBody = stdout, status = 0
        if let range = stdout.range(of: marker, options: .backwards) {
            replyBody = String(stdout[..<range.lowerBound])
            status = Int(stdout[range.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        return Result(exitCode: run.status, status: status, body: replyBody, stderr: run.stderr)
    }
}

/// curl is not installed: the TLS tests need it.
public struct CurlMissing: Error, CustomStringConvertible {
    public var description: String { "curl is not installed: run bash Tests/install-deps.sh (or apt-get install curl)" }
}
