/// Bitrates as people write them: "1500000", "800k", "1.5M" (k = 1000, M = 1,000,000, case-insensitive), for command
/// lines and control messages.
public enum BitrateNotation {
    /// Parses a bitrate.
    /// - Parameter text: e.g. "1.5M".
    /// - Returns: bits per second, or nil if the text is not a positive bitrate that fits 32 bits (OpenH264's `int`).
    public static func parse(_ text: String) -> Int? {
        var number = Substring(text)
        var multiplier = 1.0
        switch number.last {
        case "k", "K": multiplier = 1_000; number = number.dropLast()
        case "m", "M": multiplier = 1_000_000; number = number.dropLast()
        default: break
        }
        guard let value = Double(number), value.isFinite, value > 0 else { return nil }
        let bits = (value * multiplier).rounded()
        guard bits >= 1, bits <= Double(Int32.max) else { return nil }
        return Int(bits)
    }

    /// Formats a bitrate compactly: "1.5M", "800k", "1234".
    /// - Parameter bitsPerSecond: the bitrate.
    public static func format(_ bitsPerSecond: Int) -> String {
        if bitsPerSecond >= 1_000_000, bitsPerSecond % 100_000 == 0 {
            let tenths = bitsPerSecond / 100_000
            return tenths % 10 == 0 ? "\(tenths / 10)M" : "\(tenths / 10).\(tenths % 10)M"
        }
        if bitsPerSecond >= 1_000, bitsPerSecond % 1_000 == 0 { return "\(bitsPerSecond / 1_000)k" }
        return "\(bitsPerSecond)"
    }
}
