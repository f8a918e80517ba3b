import DTLS
import NIOCore
import Sender
import Transport
import WebRTC
import WebRTCTransport
@testable import WHEP

/// Weak references to what one WHEP viewer's session owns (the session, its socket's transport, its ICE + DTLS
/// link, the OpenSSL endpoint, and once connected its stream on the shared encoder), taken on the session's loop.
/// A viewer that left must free every one of them (issue 20, item 2).
// @unchecked Sendable: the references are written once on the loop before the object is shared, then only read
// there (`alive`).
final class ViewerObjects: @unchecked Sendable {
    let loop: EventLoop
    weak var session: ViewerSession?
    weak var transport: UDPTransport?
    weak var link: WebRTCLink?
    weak var peer: PeerTransport?
    weak var dtls: DTLSEndpoint?
    weak var viewer: FanOutViewer?

    private init(loop: EventLoop) { self.loop = loop }

    /// Takes the references of the session behind `location` (`/whep/<id>`), on its loop.
    /// - Throws: `WHEPTestError` when the server has no such session.
    static func watch(_ server: WHEPServer, location: String) async throws -> ViewerObjects {
        let id = String(location.dropFirst("\(WHEPRequest.endpointPath)/".count))
        guard let handle = server.table.session(id) else { throw WHEPTestError("no session \(id)") }
        return try await handle.loop.submit {
            let objects = ViewerObjects(loop: handle.loop)
            let session = handle.session.value
            objects.session = session
            objects.transport = session.transport
            objects.link = session.link
            objects.peer = session.link?.peer
            objects.dtls = session.link?.peer.dtls
            objects.viewer = session.viewer
            return objects
        }.get()
    }

    /// The names of the objects still alive, read on the loop.
    var alive: [String] {
        get async throws {
            try await loop.submit { [self] in
                let objects: [(String, AnyObject?)] = [
                    ("ViewerSession", session), ("UDPTransport", transport), ("WebRTCLink", link),
                    ("PeerTransport", peer), ("DTLSEndpoint", dtls), ("FanOutViewer", viewer),
                ]
                return objects.compactMap { $0.1 == nil ? nil : $0.0 }
            }.get()
        }
    }
}
