import ArgumentParser
import Foundation
import WHIP
import WebRTC

/// The STUN and TURN servers of `send --whip` and `serve`: `--ice-server` (repeatable) with the TURN servers' `--ice-username` and
/// `--ice-credential` or `--ice-credential-file`. The credential is never printed.
struct ICEServerOptions: ParsableArguments {
    @Option(name: .customLong("ice-server"), help: ArgumentHelp(
        "A STUN or TURN server, repeatable: stun:HOST[:PORT], turn:HOST[:PORT] (UDP; port 3478 by default), "
            + "turn:HOST[:PORT]?transport=tcp (TCP) or turns:HOST[:PORT] (TLS, port 5349 by default; the certificate "
            + "and host name always verified, --ca-file adds a CA). IPv4. Its server-reflexive or relayed candidate "
            + "goes into send --whip's and receive --whep's offer, or into each viewer's answer for serve.", valueName: "uri"))
    var iceServers: [String] = []

    @Option(name: .customLong("ice-username"), help: "The username on the turn: and turns: --ice-server(s).")
    var iceUsername: String?

    @Option(name: .customLong("ice-credential"), help: "The password on the turn: and turns: --ice-server(s) (never printed; prefer --ice-credential-file).")
    var iceCredential: String?

    @Option(name: .customLong("ice-credential-file"), help: "A file holding the password on the turn: and turns: --ice-server(s).")
    var iceCredentialFile: String?

    /// Whether any of the options is given.
    var isUsed: Bool { !iceServers.isEmpty || iceUsername != nil || iceCredential != nil || iceCredentialFile != nil }

    /// Checks the values before anything starts (the credential file is read by `servers()`).
    /// - Parameters:
    ///   - whip: Whether `--whip` (`send`) or `--whep` (`receive`) is given (they use the servers only then; `serve` always).
    ///   - option: The option named in the error.
    /// - Throws: `ValidationError` naming the option and the problem.
    func check(whip: Bool = true, option: String = "--whip") throws {
        guard isUsed else { return }
        guard whip else {
            throw ValidationError("--ice-server, --ice-username, --ice-credential and --ice-credential-file need \(option)")
        }
        if iceCredential != nil && iceCredentialFile != nil {
            throw ValidationError("give --ice-credential or --ice-credential-file, not both")
        }
        // A stand-in for a file's credential: the checks need to know that there is one, not what it is.
        _ = try servers(credential: iceCredential ?? iceCredentialFile.map { _ in "credential-from-file" })
    }

    /// The servers, the credential read from `--ice-credential-file` when given.
    /// - Throws: `ValidationError` for a bad value or an unreadable or empty credential file.
    func servers() throws -> [ICEServer] {
        var credential = iceCredential
        if let file = iceCredentialFile {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw ValidationError("cannot read --ice-credential-file \(file): \(error.localizedDescription)")
            }
            // One line: the password without the line end (a password may hold spaces, so only newlines go).
            credential = String(text.prefix { $0 != "\n" && $0 != "\r" })
            if credential?.isEmpty != false { throw ValidationError("--ice-credential-file \(file) holds no password") }
        }
        return try servers(credential: credential)
    }

    private func servers(credential: String?) throws -> [ICEServer] {
        var servers: [ICEServer] = []
        for uri in iceServers {
            let server: ICEServer
            do {
                server = try ICEServer(uri: uri, username: iceUsername, credential: credential)
            } catch {
                throw ValidationError("--ice-server \(uri): \(Self.describe(error))")
            }
            if server.scheme.isTURN, iceUsername == nil || credential == nil {
                throw ValidationError(
                    "--ice-server \(uri): a \(server.scheme.rawValue): server needs --ice-username and --ice-credential (or --ice-credential-file)")
            }
            if let reason = server.unusableReason() { throw ValidationError("--ice-server \(uri): \(reason)") }
            servers.append(server)
        }
        if (iceUsername != nil || credential != nil), !servers.contains(where: { $0.scheme.isTURN }) {
            throw ValidationError("--ice-username and --ice-credential are for turn: and turns: servers, and no --ice-server is one")
        }
        return servers
    }

    /// The parser's reason, the credential named as a field only.
    private static func describe(_ error: ICEServerError) -> String {
        switch error {
        case .tooLong(let field) where field == "username": "--ice-username is longer than \(ICEServer.maximumFieldLength) bytes"
        case .tooLong(let field) where field == "credential": "the credential is longer than \(ICEServer.maximumFieldLength) bytes"
        default: "\(error)"
        }
    }
}
