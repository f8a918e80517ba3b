extension Duration {
    /// The duration in seconds as a `Double`, for rate arithmetic in the pure stages (internal, so it cannot clash
    /// with `Codec`'s public `inSeconds`).
    var secondsValue: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }

    /// A duration from seconds, clamped to ±10^9 s so that the conversion cannot trap on a hostile value.
    static func secondsClamped(_ value: Double) -> Duration {
        guard value.isFinite else { return value > 0 ? .seconds(1_000_000_000) : .zero }
        let clamped = min(max(value, -1e9), 1e9)
        return .nanoseconds(Int64(clamped * 1e9))
    }
}
