extension Duration {
    /// A duration from seconds, clamped to ±10^9 s so that the conversion cannot trap on a hostile value.
    public static func secondsClamped(_ value: Double) -> Duration {
        guard value.isFinite else { return value > 0 ? .seconds(1_000_000_000) : .zero }
        let clamped = min(max(value, -1e9), 1e9)
        return .nanoseconds(Int64(clamped * 1e9))
    }
}
