import Codec

/// Computes the encoder's target bitrate from the operator's wish and the peer's limits.
///
/// The effective target is the operator's bitrate (command line or control endpoint) capped by the peer's latest limit
/// from each of REMB (draft-alvestrand-rmcat-remb) and TMMBR (RFC 5104 section 4.2.1), then clamped to the configured
/// minimum and to the level's maximum. The encoder's ceiling follows as `target * ceilingFactor`
/// (1.5x, as WebRTC sets VideoToolbox's DataRateLimits). Pure: no clock, no I/O.
public struct BitrateController: Sendable, Equatable {
    /// The operator's bitrate in bit/s.
    public private(set) var operatorBitrate: Int
    /// The latest REMB limit from the peer in bit/s, if any.
    public private(set) var rembLimit: Int?
    /// The latest TMMBR limit from the peer in bit/s, if any.
    public private(set) var tmmbrLimit: Int?
    /// The sender's own estimate of the path's capacity (congestion control), in bit/s, if any.
    public private(set) var estimateLimit: Int?
    /// The lowest target ever chosen, in bit/s.
    public let minimumBitrate: Int
    /// The highest target allowed (the level's MaxBR over the ceiling factor), in bit/s.
    public let maximumBitrate: Int
    /// The ceiling over the target (1.5 by default).
    public let ceilingFactor: Double

    /// Errors for values that cannot be a bitrate.
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        /// The value is zero or negative.
        case notPositive(Int)
        /// The value is above the level's limit.
        case aboveLimit(Int, limit: Int)

        public var description: String {
            switch self {
            case .notPositive(let v): return "bitrate must be positive, got \(v) bit/s"
            case .aboveLimit(let v, let limit): return "bitrate \(v) bit/s is above the limit of \(limit) bit/s"
            }
        }
    }

    /// Creates a controller.
    /// - Parameters:
    ///   - operatorBitrate: the operator's initial bitrate in bit/s.
    ///   - minimumBitrate: the floor in bit/s.
    ///   - maximumBitrate: the cap in bit/s (level limit).
    ///   - ceilingFactor: the ceiling over the target.
    /// - Throws: `Error` when a value is not positive or the operator bitrate is above the maximum.
    public init(operatorBitrate: Int, minimumBitrate: Int, maximumBitrate: Int, ceilingFactor: Double = EncoderConfiguration.defaultMaxBitrateRatio) throws {
        guard minimumBitrate > 0 else { throw Error.notPositive(minimumBitrate) }
        guard maximumBitrate >= minimumBitrate else { throw Error.aboveLimit(minimumBitrate, limit: maximumBitrate) }
        self.minimumBitrate = minimumBitrate
        self.maximumBitrate = maximumBitrate
        self.ceilingFactor = ceilingFactor
        self.operatorBitrate = 0
        try setOperatorBitrate(operatorBitrate)
    }

    /// The target the encoder should use now, in bit/s.
    public var effectiveTarget: Int {
        var target = operatorBitrate
        if let remb = rembLimit { target = min(target, remb) }
        if let tmmbr = tmmbrLimit { target = min(target, tmmbr) }
        if let estimate = estimateLimit { target = min(target, estimate) }
        return min(max(target, minimumBitrate), maximumBitrate)
    }

    /// The hard ceiling matching `effectiveTarget`, in bit/s.
    public var effectiveCeiling: Int { Int((Double(effectiveTarget) * ceilingFactor).rounded()) }

    /// Sets the operator's bitrate.
    /// - Parameter bps: bit/s.
    /// - Throws: `Error` when not positive or above the maximum; the controller is then unchanged.
    public mutating func setOperatorBitrate(_ bps: Int) throws {
        guard bps > 0 else { throw Error.notPositive(bps) }
        guard bps <= maximumBitrate else { throw Error.aboveLimit(bps, limit: maximumBitrate) }
        operatorBitrate = bps
    }

    /// Records the peer's latest REMB estimate.
    /// - Parameter bps: bit/s (0 is taken as the floor, as libwebrtc does).
    public mutating func receivedREMB(_ bps: Int) { rembLimit = max(0, bps) }

    /// Records the congestion controller's latest estimate.
    /// - Parameter bps: bit/s.
    public mutating func receivedEstimate(_ bps: Int) { estimateLimit = max(0, bps) }

    /// Records the peer's latest TMMBR limit.
    /// - Parameter bps: bit/s.
    public mutating func receivedTMMBR(_ bps: Int) { tmmbrLimit = max(0, bps) }
}
