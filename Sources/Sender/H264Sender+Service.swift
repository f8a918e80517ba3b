public import ServiceLifecycle

extension H264Sender: Service {
    /// Runs the sender as a swift-service-lifecycle `Service`: it streams whatever is pushed with `send` until the
    /// service group shuts down gracefully (or is cancelled), then finishes: the frame still waiting is encoded, an
    /// RTCP BYE is sent and the socket closed (`finish()`). Put it before the services that push frames in the group,
    /// so that they stop first.
    /// - Throws: the stream's error when it failed (`finish()`'s).
    public func run() async throws {
        try? await gracefulShutdown()
        _ = try await finish()
    }
}
