import ArgumentParser
import Control
import Foundation
import HTTPEndpoint

/// `--control HOST:PORT` and its token: the control endpoint `send` and `serve` share, with the same rules (loopback
/// unless a token is given; the token never printed).
struct ControlEndpointOptions: ParsableArguments {
    @Option(help: "Start the control endpoint on HOST:PORT (loopback unless you say otherwise; then a token is required).")
    var control: HostPort?

    @Option(name: .customLong("control-token"), help: "Bearer token the control endpoint requires (never printed).")
    var controlToken: String?

    @Option(name: .customLong("control-token-file"), help: "A file holding the control endpoint's bearer token.")
    var controlTokenFile: String?

    func validate() throws {
        if controlToken != nil && controlTokenFile != nil {
            throw ValidationError("give --control-token or --control-token-file, not both")
        }
        if (controlToken != nil || controlTokenFile != nil) && control == nil {
            throw ValidationError("--control-token needs --control")
        }
        // Refused before anything starts; `ControlServer` checks it again when it binds.
        if let control,
           let refused = LoopbackRule.hostNeedingToken(
               hasToken: controlToken != nil || controlTokenFile != nil, host: control.host)
        {
            throw ValidationError("\(ControlServerError.tokenRequired(refused))")
        }
    }

    /// The control token from --control-token or --control-token-file.
    func readToken() throws -> String? {
        try BearerTokenOption.read(controlToken, file: controlTokenFile, fileOption: "--control-token-file")
    }

    /// Starts the control endpoint over `target` when --control was given, and says where on stderr unless `quiet`.
    /// - Parameters:
    ///   - target: the sender or WHEP server the commands go to.
    ///   - token: the token `readToken()` read.
    ///   - tls: serve HTTPS (`--tls-cert`, `--tls-key`), or nil.
    ///   - quiet: no line on stderr.
    /// - Returns: the server, or nil without --control.
    /// - Throws: `ValidationError` naming why the endpoint cannot start (a token missing or malformed, a certificate
    ///   or key that cannot be used), bind errors.
    func start(target: some ControlTarget, token: String?, tls: TLSServerConfiguration?, quiet: Bool) async throws
        -> ControlServer?
    {
        guard let control else { return nil }
        let server: ControlServer
        do {
            server = try await ControlServer(host: control.host, port: control.port, token: token, target: target, tls: tls)
        } catch let error as ControlServerError {
            throw ValidationError("\(error)")
        } catch let error as TLSServerError {
            throw ValidationError("\(error)")
        }
        let scheme = server.isHTTPS ? "https" : "http"
        if !quiet { FileHandle.standardError.write(Data("control endpoint on \(scheme)://\(control)\n".utf8)) }
        return server
    }
}
