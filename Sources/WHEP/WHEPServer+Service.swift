public import ServiceLifecycle

extension WHEPServer: Service {
    /// Runs the server as a swift-service-lifecycle `Service`: it serves viewers until the service group shuts down
    /// gracefully (or is cancelled), then finishes: every viewer gets an RTCP BYE and DTLS close_notify, the sockets
    /// close and the encoder stops (`finish()`).
    public func run() async throws {
        try? await gracefulShutdown()
        await finish()
    }
}
