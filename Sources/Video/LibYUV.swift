internal import CYUV

/// The one mapping of libyuv statuses (0 = success, anything else = failure) into `VideoError`, raw status kept.
enum LibYUV {
    /// Throws if `status` is not libyuv's success value.
    /// - Parameters:
    ///   - status: the value the libyuv function returned.
    ///   - function: the libyuv function name, for the error.
    /// - Throws: `VideoError.libyuv`.
    @inline(__always)
    static func check(_ status: Int32, _ function: StaticString) throws(VideoError) {
        if status != 0 { throw .libyuv(function: "\(function)", status: status) }
    }

    /// libyuv's version (`LIBYUV_VERSION`).
    static var version: Int { Int(LIBYUV_VERSION) }
}
