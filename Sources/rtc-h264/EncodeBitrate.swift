import ArgumentParser
import Codec

/// A bitrate given on the command line: plain bits per second ("1500000") or with a k/M suffix ("800k", "1.5M").
struct EncodeBitrate: ExpressibleByArgument, Equatable, CustomStringConvertible {
    /// Bits per second.
    var bitsPerSecond: Int

    /// Parses "1.5M", "800k", "1500000" (see `BitrateNotation`).
    /// - Parameter argument: the text.
    init?(argument: String) {
        guard let bits = BitrateNotation.parse(argument) else { return nil }
        bitsPerSecond = bits
    }

    init(bitsPerSecond: Int) { self.bitsPerSecond = bitsPerSecond }

    var description: String { BitrateNotation.format(bitsPerSecond) }

    static var defaultValueDescription: String { "1.5M" }
}

/// A scheduled bitrate change, "FRAME:RATE" (e.g. "300:800k"): before frame FRAME the target becomes RATE.
struct EncodeBitrateChange: ExpressibleByArgument, Equatable {
    /// The input frame index at which the change applies.
    var frame: Int
    /// The new target.
    var bitrate: EncodeBitrate

    /// Parses "FRAME:RATE".
    /// - Parameter argument: the text.
    init?(argument: String) {
        let parts = argument.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let frame = Int(parts[0]), frame >= 0,
              let bitrate = EncodeBitrate(argument: String(parts[1])) else { return nil }
        self.frame = frame
        self.bitrate = bitrate
    }
}

/// A picture size "WxH" (e.g. "1280x720").
struct EncodeSize: ExpressibleByArgument, Equatable {
    var width: Int
    var height: Int

    /// Parses "WxH".
    /// - Parameter argument: the text.
    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        width = w
        height = h
    }
}
