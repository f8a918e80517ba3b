import MediaTime

/// When the WHIP publisher restarts ICE (RFC 9725 section 4.4), sans-IO: triggers and outcomes in with the time,
/// "start an attempt now" out.
///
/// A trigger (the selected pair stopped answering consent checks, or the host's addresses changed) asks for a restart;
/// an attempt runs until the new pair is selected (`succeeded`) or fails (`failed`: the PATCH was refused, or no pair
/// was selected within `completionTimeout`). Failed attempts are retried after 1 s, doubling up to 30 s, at most
/// `maximumAttempts` in a row (an ICE restart storm is bounded; after that the agent's own restart deadline ends the
/// session). A trigger while an attempt runs waits for its outcome: a success clears it (the new path is proven), a
/// failure retries.
struct ICERestartPolicy: Sendable {
    /// Why a restart was asked for.
    enum Reason: String, Sendable {
        /// The selected pair stopped answering consent checks.
        case disconnected = "consent checks unanswered"
        /// The host's IP addresses changed (an interface went down, an address was replaced).
        case addressChanged = "address change"
        /// A failed attempt is retried.
        case retry
    }

    /// How long an attempt may take from its PATCH to the new pair's selection before it counts as failed.
    static let completionTimeout = Duration.seconds(5)
    /// The wait before the first retry; it doubles per failure up to `maximumBackoff`.
    static let firstBackoff = Duration.seconds(1)
    /// The longest wait between retries.
    static let maximumBackoff = Duration.seconds(30)
    /// The most attempts in a row without a success.
    static let maximumAttempts = 8

    /// What is asked for and not started yet.
    private(set) var pending: Reason?
    /// When the attempt in flight started.
    private(set) var inFlight: MonotonicTime?
    /// Attempts since the last success.
    private(set) var attempts = 0
    /// When the first trigger since the last success came (the gap a success closes).
    private(set) var triggeredAt: MonotonicTime?
    private var notBefore: MonotonicTime?

    /// Asks for a restart (an address change outranks a retry or a disconnection).
    mutating func trigger(_ reason: Reason, now: MonotonicTime) {
        if triggeredAt == nil { triggeredAt = now }
        if pending == nil || reason == .addressChanged { pending = reason }
    }

    /// The reason to start an attempt now, if one is due; the attempt is then in flight.
    mutating func start(now: MonotonicTime) -> Reason? {
        if let inFlight {
            guard now - inFlight >= Self.completionTimeout else { return nil }
            failed(now: now)
        }
        guard let reason = pending, attempts < Self.maximumAttempts, now >= (notBefore ?? now) else { return nil }
        pending = nil
        inFlight = now
        attempts += 1
        return reason
    }

    /// The attempt in flight failed: retried after the backoff.
    mutating func failed(now: MonotonicTime) {
        guard inFlight != nil else { return }
        inFlight = nil
        let exponent = min(max(attempts - 1, 0), 16)
        let backoff = min(Self.firstBackoff * (1 << exponent), Self.maximumBackoff)
        notBefore = now + backoff
        if pending == nil { pending = .retry }
    }

    /// A new pair was selected: the restart is done. Returns the time since the first trigger, when an attempt was
    /// in flight (nil for a path change nobody asked for).
    mutating func succeeded(now: MonotonicTime) -> Duration? {
        guard inFlight != nil else { return nil }
        defer {
            inFlight = nil
            pending = nil
            attempts = 0
            notBefore = nil
            triggeredAt = nil
        }
        return triggeredAt.map { now - $0 }
    }
}
