import ArgumentParser
import RTP
import Sender

/// How the sender answers its peer (or, for `serve`, each viewer): the policy options `send` (and `sdp`, through
/// `StreamOptions`) and `serve` share, with one validation. `--rtx` (send) and `--no-rtx` (serve) differ and stay
/// with their commands: send offers RTX when asked, serve uses it whenever a viewer offers it.
struct SenderPolicyOptions: ParsableArguments {
    @Option(name: .customLong("min-bitrate"), help: "Lowest target the peer's (serve: the viewers') REMB, TMMBR and loss may impose.")
    var minBitrate: RateArgument = RateArgument(bps: 50_000)

    @Option(name: .customLong("keyframe-throttle"), help: "Minimum milliseconds between keyframes sent on request, in media time (their RTP timestamps; PLI/FIR; serve: also viewers joining).")
    var keyframeThrottleMs: Int = 300

    @Option(help: "IP-level MTU the packets must fit.")
    var mtu: Int = 1200

    @Option(name: .customLong("degradation-preference"), help: "When the bitrate is short: maintain-framerate (step the resolution down), maintain-resolution (skip frames) or balanced.")
    var degradationPreference: DegradationPreferenceArgument = .maintainFramerate

    @Option(name: .customLong("playout-delay"), help: ArgumentHelp(
        "Ask the receiver to render between MIN and MAX milliseconds after capture (0-40950, in steps of 10 ms; 0-0: render each frame as soon as it is decoded), with the playout-delay RTP header extension on every packet of the first frame and of every keyframe (send: its SDP gets a=extmap; serve and send --whip: when the peer negotiates it).",
        valueName: "min-max"))
    var playoutDelay: String?

    @Flag(name: .customLong("no-nack"), help: "Do not answer NACKs with retransmissions (RFC 4585; serve then offers no RTX).")
    var noNACK = false

    @Flag(name: .customLong("no-pacing"), help: "Send each frame's packets in one burst.")
    var noPacing = false

    @Flag(name: .customLong("no-congestion-control"), help: "Do not lower the target when the peer (serve: a viewer) reports loss.")
    var noCongestionControl = false

    /// The longest keyframe throttle accepted, in milliseconds (an hour).
    static let maximumKeyframeThrottleMs = 3_600_000

    func validate() throws {
        _ = try Self.parsePlayoutDelay(playoutDelay)
        guard mtu >= 200 && mtu <= 65_000 else { throw ValidationError("--mtu must be between 200 and 65000") }
        guard (0...Self.maximumKeyframeThrottleMs).contains(keyframeThrottleMs) else {
            throw ValidationError("--keyframe-throttle must be 0-\(Self.maximumKeyframeThrottleMs) ms")
        }
    }

    /// `--playout-delay MIN-MAX` in milliseconds, both within 0-40950, MIN <= MAX.
    /// - Parameter text: the flag's value, or nil for none.
    /// - Returns: the bounds (rounded down to 10 ms), or nil.
    /// - Throws: `ValidationError` naming the flag.
    static func parsePlayoutDelay(_ text: String?) throws -> PlayoutDelay? {
        guard let text else { return nil }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count <= 5 }), let low = Int(parts[0]), let high = Int(parts[1]),
              let delay = PlayoutDelay(minimumMilliseconds: low, maximumMilliseconds: high)
        else {
            throw ValidationError(
                "--playout-delay \(text) is not MIN-MAX milliseconds within 0-\(PlayoutDelay.maximumMilliseconds), MIN <= MAX")
        }
        return delay
    }

    /// Writes the policy into a sender configuration whose encoder is already set.
    /// - Parameters:
    ///   - configuration: the configuration.
    ///   - pacingFactor: the factor packets are paced at over the target, unless --no-pacing.
    func apply(to configuration: inout SenderConfiguration, pacingFactor: Double) {
        configuration.minimumBitrate = min(minBitrate.bps, configuration.encoder.targetBitrate)
        configuration.mtu = mtu
        configuration.degradationPreference = degradationPreference.preference
        configuration.nack = !noNACK
        configuration.pacingFactor = noPacing ? nil : pacingFactor
        configuration.congestionControl = !noCongestionControl
        configuration.keyframeThrottle = .milliseconds(keyframeThrottleMs)
        configuration.playoutDelay = try? Self.parsePlayoutDelay(playoutDelay)
    }
}
