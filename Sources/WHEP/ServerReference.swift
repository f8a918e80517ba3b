import Synchronization

/// The server, reachable from its HTTP handlers once it exists.
final class ServerReference: Sendable {
    let server = Mutex<WHEPServer?>(nil)
}
