/// Why a transport refused a request.
package enum TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `secure(with:)` was called on a transport that already has SRTP sessions.
    case alreadySecured

    package var description: String {
        switch self {
        case .alreadySecured: "the transport is already secured; SRTP keys are installed once"
        }
    }
}
