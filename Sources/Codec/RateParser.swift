/// Parses the rates operators type: bitrates like `1.5M`, `800k`, `800kbps`, `1500000`, and frame rates like `30`,
/// `29.97`. Shared by the command line and the control endpoint so both accept exactly the same forms.
///
/// Every value is range-checked as a `Double` before it is converted to an integer, so no text (`-1e30`, `9e18`,
/// `nan`, `inf`, a thousand digits) can trap: it is either a rate within `1...maximumBitrate` bit/s or a typed error.
public enum RateParser {
    /// Why a rate could not be parsed.
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        /// The text is not a number with an optional k/M/G suffix.
        case notARate(String)
        /// The value is zero or negative (or rounds to zero).
        case notPositive(String)
        /// The value is above the largest one accepted (the limit as people read it, e.g. "1 Tbit/s").
        case tooLarge(String, maximum: String)

        public var description: String {
            switch self {
            case .notARate(let s): return "'\(s)' is not a rate (examples: 1.5M, 800k, 1500000)"
            case .notPositive(let s): return "'\(s)' must be greater than zero"
            case .tooLarge(let s, let maximum): return "'\(s)' is above the maximum \(maximum)"
            }
        }
    }

    /// The largest bitrate parsed, 1 Tbit/s: far above any H.264 level (level 6.2 High is 800 Mbit/s), and small
    /// enough that the 1.5x ceiling and any sum of a few rates stay far inside `Int`.
    public static let maximumBitrate = 1_000_000_000_000
    /// The largest frame rate parsed. Above any camera; the encoder accepts at most 60 (`EncoderConfiguration`).
    public static let maximumFrameRate = 1_000.0
    /// Texts longer than this are refused before parsing (no rate needs more characters; bounds the work done on
    /// hostile input).
    public static let maximumTextLength = 64

    /// Parses a bitrate in bit/s.
    /// - Parameter text: a number with an optional suffix `k`, `M` or `G` (decimal multiples) and optional `bps`/`b/s`.
    /// - Returns: bit/s, within `1...maximumBitrate`.
    /// - Throws: `Error.notARate` for anything else (NaN included), `.notPositive` for a value that is zero, negative
    ///   (`-inf` included) or rounds to zero, `.tooLarge` above `maximumBitrate` (`inf` included).
    public static func bitrate(_ text: String) throws -> Int {
        guard text.utf8.count <= maximumTextLength else { throw Error.notARate(abbreviated(text)) }
        var s = Substring(text.filter { $0 != " " && $0 != "_" })
        for unit in ["bit/s", "bps", "b/s"] where s.lowercased().hasSuffix(unit) { s = s.dropLast(unit.count) }
        var multiplier = 1.0
        switch s.last {
        case "k", "K": multiplier = 1e3; s = s.dropLast()
        case "m", "M": multiplier = 1e6; s = s.dropLast()
        case "g", "G": multiplier = 1e9; s = s.dropLast()
        default: break
        }
        guard isDecimal(s), let value = Double(s), !value.isNaN else { throw Error.notARate(text) }
        let bps = (value * multiplier).rounded()
        // Checked as a Double first: only a value inside 1...maximumBitrate reaches Int(_:).
        guard bps >= 1 else { throw Error.notPositive(text) }
        guard bps <= Double(maximumBitrate) else {
            throw Error.tooLarge(text, maximum: format(bitrate: maximumBitrate))
        }
        return Int(bps)
    }

    /// Parses a frame rate in frames per second.
    /// - Parameter text: a positive decimal number, optionally followed by `fps`.
    /// - Returns: frames per second, finite, in `(0, maximumFrameRate]`.
    /// - Throws: `Error.notARate` for anything else (NaN included), `.notPositive` for zero or less, `.tooLarge` above
    ///   `maximumFrameRate` (`inf` included).
    public static func frameRate(_ text: String) throws -> Double {
        guard text.utf8.count <= maximumTextLength else { throw Error.notARate(abbreviated(text)) }
        var s = Substring(text.filter { $0 != " " })
        if s.lowercased().hasSuffix("fps") { s = s.dropLast(3) }
        guard isDecimal(s), let value = Double(s), !value.isNaN else { throw Error.notARate(text) }
        guard value > 0 else { throw Error.notPositive(text) }
        guard value <= maximumFrameRate else { throw Error.tooLarge(text, maximum: "\(Int(maximumFrameRate)) fps") }
        return value
    }

    /// Whether `text` is not hexadecimal. `Double(_:)` also reads `0x10` and `0x1p4` (hexadecimal needs the `0x`
    /// prefix); a rate is never written so, and accepting them let `0x10` mean 16 bit/s. (`inf` and `nan` pass here
    /// and get their own errors.)
    static func isDecimal(_ text: Substring) -> Bool {
        !text.utf8.contains { $0 == UInt8(ascii: "x") || $0 == UInt8(ascii: "X") }
    }

    /// Formats a bitrate for people: `1.5 Mbit/s`, `800 kbit/s`, `1 Tbit/s`.
    /// - Parameter bps: bit/s.
    public static func format(bitrate bps: Int) -> String {
        if bps >= 1_000_000_000_000 { return "\(trim(Double(bps) / 1e12)) Tbit/s" }
        if bps >= 1_000_000_000 { return "\(trim(Double(bps) / 1e9)) Gbit/s" }
        if bps >= 1_000_000 { return "\(trim(Double(bps) / 1e6)) Mbit/s" }
        if bps >= 1_000 { return "\(trim(Double(bps) / 1e3)) kbit/s" }
        return "\(bps) bit/s"
    }

    /// `v` with at most two decimals; only called with values below 1e7 (`format` picks the unit first).
    private static func trim(_ v: Double) -> String {
        let rounded = (v * 100).rounded() / 100
        guard rounded.isFinite, abs(rounded) < 1e15 else { return "\(rounded)" }
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// The first characters of an over-long text, for an error message that stays readable.
    private static func abbreviated(_ text: String) -> String {
        String(text.prefix(maximumTextLength)) + "... (\(text.utf8.count) bytes)"
    }
}
