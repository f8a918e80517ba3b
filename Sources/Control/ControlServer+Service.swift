public import ServiceLifecycle

extension ControlServer: Service {
    /// Runs the endpoint as a swift-service-lifecycle `Service`: it answers until the service group shuts down
    /// gracefully (or is cancelled), then stops listening (`close()`). Put it after the sender or server it controls
    /// in the group, so that it closes first.
    public func run() async throws {
        try? await gracefulShutdown()
        await close()
    }
}
