public import ServiceLifecycle

extension WHIPPublisher: Service {
    /// Runs the publisher as a swift-service-lifecycle `Service`: it streams what is pushed to `sender` until the
    /// service group shuts down gracefully (or is cancelled), then finishes: the last frame, an RTCP BYE, the socket
    /// closed and the session DELETEd (`finish()`).
    /// - Throws: `finish()`'s error: the stream's, or the DELETE's.
    public func run() async throws {
        try? await gracefulShutdown()
        _ = try await finish()
    }
}
