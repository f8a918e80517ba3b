/// What happens to a WHEP server's viewers, as it happens.
public enum WHEPEvent: Sendable, Equatable {
    /// A viewer's ICE and DTLS finished: it receives the stream from the next keyframe.
    case viewerJoined(id: String, remote: String)
    /// A viewer is gone and its socket closed.
    case viewerLeft(id: String, reason: WHEPViewerLeaveReason)
}

/// Why a viewer left.
public enum WHEPViewerLeaveReason: Sendable, Equatable, CustomStringConvertible {
    /// `DELETE /whep/<id>`.
    case deleted
    /// The viewer stopped answering consent checks (RFC 7675, about 30 s of silence).
    case consentExpired
    /// ICE or DTLS did not finish within the server's connect timeout.
    case connectTimeout
    /// ICE failed.
    case iceFailed
    /// The DTLS handshake failed (a certificate not matching `a=fingerprint` included) or timed out.
    case dtlsFailed(String)
    /// The viewer sent DTLS close_notify.
    case closedByViewer
    /// The SRTP keys could not be installed.
    case securityFailed(String)
    /// The server finished.
    case serverFinished
    /// The shared stream failed (too many frames in a row could not be encoded): every viewer got a BYE.
    case streamFailed(String)

    public var description: String {
        switch self {
        case .deleted: "DELETE"
        case .consentExpired: "consent expired"
        case .connectTimeout: "no ICE/DTLS connection within the connect timeout"
        case .iceFailed: "ICE failed"
        case .dtlsFailed(let why): "DTLS failed: \(why)"
        case .closedByViewer: "closed by the viewer"
        case .securityFailed(let why): "SRTP keys refused: \(why)"
        case .serverFinished: "server finished"
        case .streamFailed(let why): "the stream failed: \(why)"
        }
    }
}
