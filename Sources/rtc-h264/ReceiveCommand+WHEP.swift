import ArgumentParser
import Foundation
import Receiver
import WHEPPlayer
import Synchronization
import WHIP

/// `receive --whep`: the WHEP endpoint, its token and CA, and the load-generation options.
struct WHEPPlayOptions: ParsableArguments {
    @Option(help: "Play this WHEP endpoint's stream (http:// or https://) instead of listening.")
    var whep: String?

    @Option(help: "Bearer token for the WHEP endpoint (never printed; prefer --token-file).")
    var token: String?

    @Option(name: .customLong("token-file"), help: "A file holding the WHEP endpoint's bearer token.")
    var tokenFile: String?

    @Option(name: .customLong("ca-file"), help: "PEM file of CA certificates to trust for an https:// --whep URL, in addition to the system's trust store.")
    var caFile: String?

    @OptionGroup var ice: ICEServerOptions

    @Option(help: "With --whep, play this many sessions at once (1-\(Self.maximumSessions)); the summary has one entry each.")
    var sessions: Int = 1

    @Option(name: .customLong("join-interval"), help: "With --sessions, seconds between one session's offer and the next (0-10).")
    var joinInterval: Double = 0

    @Flag(name: .customLong("no-decode"), help: "Reassemble frames without decoding them (load generation; framesDecoded then counts the frames that would have been shown).")
    var noDecode = false

    /// The most sessions one process plays.
    static let maximumSessions = 1000

    /// Checks the WHEP options and that nothing of the listening way is mixed in.
    func check(command: ReceiveCommand) throws {
        guard let whep else {
            if token != nil || tokenFile != nil || caFile != nil || sessions != 1 || joinInterval != 0 {
                throw ValidationError("--token, --token-file, --ca-file, --sessions and --join-interval need --whep")
            }
            try ice.check(whip: false, option: "--whep")
            return
        }
        var conflicting: [String] = []
        if command.listen != nil { conflicting.append("--listen") }
        if command.sdp != nil { conflicting.append("--sdp") }
        if command.key != nil { conflicting.append("--key") }
        if command.localKey != nil { conflicting.append("--local-key") }
        if command.noSRTP { conflicting.append("--no-srtp") }
        if command.noRTCPMux { conflicting.append("--no-rtcp-mux") }
        if command.rtxPayloadType != nil { conflicting.append("--rtx-pt") }
        if command.fecPayloadType != nil { conflicting.append("--fec-pt") }
        if !conflicting.isEmpty {
            throw ValidationError("--whep cannot be used with \(conflicting.joined(separator: ", ")): the answer and DTLS decide them")
        }
        if token != nil && tokenFile != nil { throw ValidationError("give --token or --token-file, not both") }
        guard (1...Self.maximumSessions).contains(sessions) else {
            throw ValidationError("--sessions must be 1-\(Self.maximumSessions)")
        }
        guard joinInterval >= 0, joinInterval <= 10 else { throw ValidationError("--join-interval must be 0-10 seconds") }
        if sessions > 1, command.output != nil { throw ValidationError("--output takes one session's stream: not with --sessions") }
        try ice.check(whip: true)
        try BearerTokenOption.checkEndpoint(
            whep, token: token, tokenFile: tokenFile, caFile: caFile, option: "--whep", endpoint: "WHEP")
    }

    /// The endpoint's configuration, the token read.
    func configuration() throws -> WHIPConfiguration {
        var configuration = WHIPConfiguration(url: whep ?? "", token: try BearerTokenOption.read(token, file: tokenFile, fileOption: "--token-file"))
        configuration.caFile = caFile
        configuration.iceServers = try ice.servers()
        return configuration
    }
}

/// What `receive --whep` reports: one entry per session.
struct WHEPReceiveReport: Codable {
    /// One session.
    struct Session: Codable {
        /// Its number, from 0, in the order the offers were sent.
        var session: Int
        /// Why it failed to start or ended early (nil: it played).
        var error: String?
        /// From the POST to the answer, ms.
        var answerMs: Double?
        /// ICE and DTLS after the answer, ms.
        var connectMs: Double?
        /// From the POST to the first frame ready to show, ms.
        var firstFrameMs: Double?
        /// ICE restarts.
        var iceRestarts: Int?
        /// The receiver's statistics.
        var stats: ReceiverStats?
    }
    /// Each session.
    var sessions: [Session]
    /// Sessions that played a frame.
    var playing: Int
    /// Sessions that failed to start.
    var failed: Int
}

extension ReceiveCommand {
    /// Plays `--sessions` WHEP sessions, each started `--join-interval` after the one before, until each ends.
    func runWHEP() async throws {
        let whep = try whepOptions.configuration()
        var configuration = ReceiverConfiguration(listenHost: "0.0.0.0", listenPort: 0)
        applyCommon(to: &configuration)
        let files = try openOutput(into: &configuration)
        let stopping = StopFlag()
        let players = PlayerList()
        let signals = SignalTrap {
            stopping.set()
            players.stopAll()
        }
        defer { signals.cancel() }
        let count = whepOptions.sessions, interval = whepOptions.joinInterval
        let reports = await withTaskGroup(of: WHEPReceiveReport.Session.self) { group in
            for index in 0..<count {
                group.addTask { [configuration] in
                    if index > 0, interval > 0 { try? await Task.sleep(for: .seconds(interval * Double(index))) }
                    var report = WHEPReceiveReport.Session(session: index)
                    guard !stopping.isSet else {
                        report.error = "stopped before its offer"
                        return report
                    }
                    do {
                        let player = try await WHEPPlayer(configuration: configuration, whep: whep)
                        players.add(player)
                        if stopping.isSet { player.stop() }
                        report.answerMs = player.answerDuration.milliseconds
                        report.connectMs = player.connectDuration.milliseconds
                        let stats = try await player.run()
                        report.stats = stats
                        report.firstFrameMs = player.offerToFirstFrame(stats)?.milliseconds
                        report.iceRestarts = player.iceRestarts
                        if let reason = player.transportCloseReason { report.error = reason }
                    } catch let error as WHIPError {
                        report.error = error.description(endpoint: "WHEP")
                    } catch {
                        report.error = "\(error)"
                    }
                    return report
                }
            }
            var all: [WHEPReceiveReport.Session] = []
            for await report in group { all.append(report) }
            return all.sorted { $0.session < $1.session }
        }
        try files.close()
        let report = WHEPReceiveReport(
            sessions: reports, playing: reports.filter { $0.firstFrameMs != nil }.count,
            failed: reports.filter { $0.stats == nil }.count)
        if json {
            print(try JSONLine.encode(report), terminator: "")
        } else {
            for session in reports {
                var line = "session \(session.session): "
                if let stats = session.stats {
                    line += Self.summary(stats)
                    if let first = session.firstFrameMs { line += "; first frame \(Int(first)) ms after the offer" }
                    if let error = session.error { line += "; ended: \(error)" }
                } else {
                    line += "failed: \(session.error ?? "?")"
                }
                print(line)
            }
        }
        if report.failed == count { throw CLIError("no WHEP session started: \(reports.first?.error ?? "?")") }
    }
}

extension Duration {
    /// The duration in milliseconds, to 0.1 ms.
    fileprivate var milliseconds: Double { (self / .milliseconds(1) * 10).rounded() / 10 }
}

/// Set once by a signal.
private final class StopFlag: Sendable {
    private let flag = Mutex<Bool>(false)
    var isSet: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}

/// The players started so far, stopped together by a signal.
private final class PlayerList: Sendable {
    private let players = Mutex<[WHEPPlayer]>([])
    func add(_ player: WHEPPlayer) { players.withLock { $0.append(player) } }
    func stopAll() { for player in players.withLock({ $0 }) { player.stop() } }
}
