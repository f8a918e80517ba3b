import ArgumentParser
import Codec

/// `--profile`: `baseline` (Constrained Baseline) or `high`.
enum ProfileArgument: String, ExpressibleByArgument, CaseIterable {
    case baseline, high

    /// The profile the encoder writes.
    var encoderProfile: EncoderProfile { self == .baseline ? .constrainedBaseline : .high }
}
