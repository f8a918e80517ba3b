internal import CSRTP

extension SRTPSession {
    /// The four libsrtp packet operations, dispatched in one place.
    enum Operation {
        case protectRTP, unprotectRTP, protectRTCP, unprotectRTCP
    }

    // MARK: RTP

    /// Protects an RTP packet in place: encrypts the payload and appends the authentication tag.
    ///
    /// The packet occupies `buffer[0..<length]`; the array's `count` (not its reserved capacity) must leave
    /// `suite.rtpTrailerLength` bytes after it. Nothing is allocated. The corresponding C function is `srtp_protect`.
    ///
    /// - Parameters:
    ///   - buffer: The packet buffer, modified in place.
    ///   - length: The length of the RTP packet at the start of `buffer`.
    /// - Returns: The length of the SRTP packet (`length + suite.rtpTrailerLength`).
    /// - Throws: `SRTPError.bufferTooSmall` or `.invalidPacketLength` for a bad buffer; `.library` with the libsrtp
    ///   status otherwise (for example `srtp_err_status_replay_fail` when a sequence number repeats).
    public func protectRTP(_ buffer: inout [UInt8], length: Int) throws(SRTPError) -> Int {
        try perform(.protectRTP, on: &buffer, length: length)
    }

    /// Protects an RTP packet in place in raw memory; see the array form.
    ///
    /// - Parameters:
    ///   - buffer: Memory holding the packet at its start, with room for the trailer after it.
    ///   - length: The length of the RTP packet.
    /// - Returns: The length of the SRTP packet.
    /// - Throws: `SRTPError` as for the array form.
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try perform(.protectRTP, on: buffer, length: length)
    }

    /// Verifies and decrypts an SRTP packet in place, checking it against the replay window.
    ///
    /// The corresponding C function is `srtp_unprotect`.
    ///
    /// - Parameters:
    ///   - buffer: The packet buffer, modified in place.
    ///   - length: The length of the SRTP packet at the start of `buffer`.
    /// - Returns: The length of the RTP packet (the trailer removed).
    /// - Throws: `SRTPError.library` with `authFail` for a tampered packet or wrong key, `replayFail` or
    ///   `replayOld` for a replayed packet; `.invalidPacketLength` when `length` exceeds the buffer.
    public func unprotectRTP(_ buffer: inout [UInt8], length: Int) throws(SRTPError) -> Int {
        try perform(.unprotectRTP, on: &buffer, length: length)
    }

    /// Verifies and decrypts an SRTP packet in place in raw memory; see the array form.
    ///
    /// - Parameters:
    ///   - buffer: Memory holding the packet at its start.
    ///   - length: The length of the SRTP packet.
    /// - Returns: The length of the RTP packet.
    /// - Throws: `SRTPError` as for the array form.
    public func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try perform(.unprotectRTP, on: buffer, length: length)
    }

    // MARK: RTCP

    /// Protects an RTCP compound packet in place: encrypts it and appends the SRTCP index and tag.
    ///
    /// The array's `count` must leave `suite.rtcpTrailerLength` bytes after the packet. The corresponding C function
    /// is `srtp_protect_rtcp`.
    ///
    /// - Parameters:
    ///   - buffer: The packet buffer, modified in place.
    ///   - length: The length of the RTCP packet at the start of `buffer`.
    /// - Returns: The length of the SRTCP packet (`length + suite.rtcpTrailerLength`).
    /// - Throws: `SRTPError.bufferTooSmall` or `.invalidPacketLength` for a bad buffer; `.library` otherwise.
    public func protectRTCP(_ buffer: inout [UInt8], length: Int) throws(SRTPError) -> Int {
        try perform(.protectRTCP, on: &buffer, length: length)
    }

    /// Protects an RTCP compound packet in place in raw memory; see the array form.
    ///
    /// - Parameters:
    ///   - buffer: Memory holding the packet at its start, with room for the trailer after it.
    ///   - length: The length of the RTCP packet.
    /// - Returns: The length of the SRTCP packet.
    /// - Throws: `SRTPError` as for the array form.
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try perform(.protectRTCP, on: buffer, length: length)
    }

    /// Verifies and decrypts an SRTCP packet in place, checking its index against the replay window.
    ///
    /// The corresponding C function is `srtp_unprotect_rtcp`.
    ///
    /// - Parameters:
    ///   - buffer: The packet buffer, modified in place.
    ///   - length: The length of the SRTCP packet at the start of `buffer`.
    /// - Returns: The length of the RTCP packet.
    /// - Throws: `SRTPError.library` with `authFail` for a tampered packet or wrong key, `replayFail` for a replay.
    public func unprotectRTCP(_ buffer: inout [UInt8], length: Int) throws(SRTPError) -> Int {
        try perform(.unprotectRTCP, on: &buffer, length: length)
    }

    /// Verifies and decrypts an SRTCP packet in place in raw memory; see the array form.
    ///
    /// - Parameters:
    ///   - buffer: Memory holding the packet at its start.
    ///   - length: The length of the SRTCP packet.
    /// - Returns: The length of the RTCP packet.
    /// - Throws: `SRTPError` as for the array form.
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try perform(.unprotectRTCP, on: buffer, length: length)
    }

    // MARK: One path into libsrtp

    @inline(__always)
    private func perform(_ operation: Operation, on buffer: inout [UInt8], length: Int) throws(SRTPError) -> Int {
        let result = buffer.withUnsafeMutableBytes { bytes -> Result<Int, SRTPError> in
            do throws(SRTPError) {
                return .success(try perform(operation, on: bytes, length: length))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    @inline(__always)
    private func perform(
        _ operation: Operation, on buffer: UnsafeMutableRawBufferPointer, length: Int
    ) throws(SRTPError) -> Int {
        let growth: Int
        switch operation {
        case .protectRTP: growth = suite.rtpTrailerLength
        case .protectRTCP: growth = suite.rtcpTrailerLength
        case .unprotectRTP, .unprotectRTCP: growth = 0
        }
        guard length >= 0, length <= buffer.count, length <= Int(Int32.max) - growth,
            let base = buffer.baseAddress
        else { throw .invalidPacketLength(length) }
        guard buffer.count - length >= growth else {
            throw .bufferTooSmall(required: length + growth, capacity: buffer.count)
        }
        var cLength = Int32(length)
        let status =
            switch operation {
            case .protectRTP: srtp_protect(session, base, &cLength)
            case .unprotectRTP: srtp_unprotect(session, base, &cLength)
            case .protectRTCP: srtp_protect_rtcp(session, base, &cLength)
            case .unprotectRTCP: srtp_unprotect_rtcp(session, base, &cLength)
            }
        try SRTPError.check(status)
        return Int(cLength)
    }
}
