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
    /// - Returns: the result (never throws for an HTTP or TLS failure: see `exitCode`).
    /// - Throws: when curl cannot be started.
    ///
    /// curl runs on a thread of its own, never on the cooperative pool or Dispatch's global queue (on Linux the pool
    /// runs there): waiting for it there would hold one of its few threads (two on a 2-core machine) while the server
    /// under test needs them to answer.
    /// - Throws: `CurlMissing` (naming the install step) when curl is not installed.
    public static func request(
        _ url: String, caFile: String?, method: String = "GET", headers: [String: String] = [:], body: String? = nil
    ) async throws -> Result {
        guard isAvailable else { throw CurlMissing() }
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Swift.Result {
                    try run(url, caFile: caFile, method: method, headers: headers, body: body)
                })
            }.start()
        }
    }

    /// `request`, blocking the calling thread.
    static func run(
        _ url: String, caFile: String?, method: String, headers: [String: String], body: String?
    ) throws -> Result {
        let marker = "\n--curl-status:"
        var arguments = ["--silent", "--show-error", "--max-time", "10", "--request", method,
                         "--write-out", "\(marker)%{http_code}", "--output", "-"]
        if let caFile { arguments += ["--cacert", caFile] }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { arguments += ["--header", "\(name): \(value)"] }
        if let body { arguments += ["--data-binary", body] }
        arguments.append(url)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var replyBody = stdout, status = 0
        if let range = stdout.range(of: marker, options: .backwards) {
            replyBody = String(stdout[..<range.lowerBound])
            status = Int(stdout[range.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        return Result(exitCode: process.terminationStatus, status: status, body: replyBody, stderr: stderr)
    }
}

/// curl is not installed: the TLS tests need it.
public struct CurlMissing: Error, CustomStringConvertible {
    public var description: String { "curl is not installed: run bash Tests/install-deps.sh (or apt-get install curl)" }
}
