public import MediaTime

/// Milliseconds on the fake clock the stage and session tests drive.
public func ms(_ value: Int64) -> MonotonicTime { MonotonicTime(nanoseconds: value * 1_000_000) }
