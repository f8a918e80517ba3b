import MediaTime
import RTP

/// Milliseconds on the fake clock.

/// Sequence numbers from raw values.
func seqs(_ values: [UInt16]) -> [SequenceNumber] { values.map { SequenceNumber($0) } }
