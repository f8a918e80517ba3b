extension Duration {
    /// The duration in seconds, as a `Double` (for statistics such as WebRTC's `totalEncodeTime`).
    public var inSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
