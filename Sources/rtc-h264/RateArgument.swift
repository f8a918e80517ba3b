import ArgumentParser
import Codec

/// A bitrate on the command line, in any form `RateParser` accepts (`1.5M`, `800k`, `1500000`).
struct RateArgument: ExpressibleByArgument {
    /// Bits per second.
    var bps: Int

    /// Creates a rate.
    /// - Parameter bps: bits per second.
    init(bps: Int) { self.bps = bps }

    /// Parses a rate with `RateParser.bitrate(_:)`, which range-checks it (1 bit/s to 1 Tbit/s) before converting;
    /// anything else is nil, which ArgumentParser reports as a usage error naming the flag.
    /// - Parameter argument: the text.
    init?(argument: String) {
        guard let bps = try? RateParser.bitrate(argument) else { return nil }
        self.bps = bps
    }

    /// The default as people read it in `--help`: "1.5 Mbit/s".
    var defaultValueDescription: String { RateParser.format(bitrate: bps) }
}
