internal import CSRTP

extension SRTPError {
    /// The one place a libsrtp status becomes a Swift error.
    ///
    /// - Parameters:
    ///   - status: The value a libsrtp function returned.
    /// - Throws: `SRTPError.library` carrying the raw status when it is not `srtp_err_status_ok`.
    @inline(__always)
    static func check(_ status: srtp_err_status_t) throws(SRTPError) {
        if status != srtp_err_status_ok {
            throw SRTPError.library(SRTPStatus(rawValue: status.rawValue))
        }
    }
}
