import MediaTime
import RTP

/// Milliseconds on the fake clock.
func ms(_ value: Int64) -> MonotonicTime { MonotonicTime(nanoseconds: value * 1_000_000) }

/// Sequence numbers from raw values.
func seqs(_ values: [UInt16]) -> [SequenceNumber] { values.map { SequenceNumber($0) } }
