import ArgumentParser
import Codec

/// A scheduled bitrate change, "FRAME:RATE" (e.g. "300:800k"): before frame FRAME the target becomes RATE.
struct EncodeBitrateChange: ExpressibleByArgument {
    /// The input frame index at which the change applies.
    var frame: Int
    /// The new target.
    var bitrate: RateArgument

    /// Parses "FRAME:RATE".
    /// - Parameter argument: the text.
    init?(argument: String) {
        let parts = argument.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let frame = Int(parts[0]), frame >= 0,
              let bitrate = RateArgument(argument: String(parts[1])) else { return nil }
        self.frame = frame
        self.bitrate = bitrate
    }
}

