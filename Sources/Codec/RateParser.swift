/// Parses the rates operators type: bitrates like `1.5M`, `800k`, `800kbps`, `1500000`, and frame rates like `30`,
/// `29.97`. Shared by the command line and the control endpoint so both accept exactly the same forms.
public enum RateParser {
    /// Why a rate could not be parsed.
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        /// The text is not a number with an optional k/M/G suffix.
        case notARate(String)
        /// The value is zero or negative.
        case notPositive(String)

        public var description: String {
            switch self {
            case .notARate(let s): return "'\(s)' is not a rate (examples: 1.5M, 800k, 1500000)"
            case .notPositive(let s): return "'\(s)' must be greater than zero"
            }
        }
    }

    /// Parses a bitrate in bit/s.
    /// - Parameter text: a number with an optional suffix `k`, `M` or `G` (decimal multiples) and optional `bps`/`b/s`.
    /// - Returns: bit/s.
    /// - Throws: `Error` for anything else, or a value that is not positive.
    public static func bitrate(_ text: String) throws -> Int {
        var s = Substring(text.filter { $0 != " " && $0 != "_" })
        for unit in ["bit/s", "bps", "b/s"] where s.lowercased().hasSuffix(unit) { s = s.dropLast(unit.count) }
        var multiplier = 1.0
        switch s.last {
        case "k", "K": multiplier = 1e3; s = s.dropLast()
        case "m", "M": multiplier = 1e6; s = s.dropLast()
        case "g", "G": multiplier = 1e9; s = s.dropLast()
        default: break
        }
        guard let value = Double(s), value.isFinite, value * multiplier < Double(Int.max) else {
            throw Error.notARate(text)
        }
        let bps = Int((value * multiplier).rounded())
        guard bps > 0 else { throw Error.notPositive(text) }
        return bps
    }

    /// Parses a frame rate in frames per second.
    /// - Parameter text: a positive decimal number, optionally followed by `fps`.
    /// - Returns: frames per second.
    /// - Throws: `Error` for anything else.
    public static func frameRate(_ text: String) throws -> Double {
        var s = Substring(text.filter { $0 != " " })
        if s.lowercased().hasSuffix("fps") { s = s.dropLast(3) }
        guard let value = Double(s), value.isFinite else { throw Error.notARate(text) }
        guard value > 0 else { throw Error.notPositive(text) }
        return value
    }

    /// Formats a bitrate for people: `1.5 Mbit/s`, `800 kbit/s`.
    /// - Parameter bps: bit/s.
    public static func format(bitrate bps: Int) -> String {
        if bps >= 1_000_000 { return "\(trim(Double(bps) / 1e6)) Mbit/s" }
        if bps >= 1_000 { return "\(trim(Double(bps) / 1e3)) kbit/s" }
        return "\(bps) bit/s"
    }

    private static func trim(_ v: Double) -> String {
        let rounded = (v * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
