/// An outbound user event `HTTPExchangeHandler` sends when it has received a whole request (head, body, end), so
/// that `HTTPConnectionGuard`, at the byte end of the pipeline, stops that request's deadline and counts the next
/// request's head from zero.
package struct HTTPRequestCompletedEvent: Sendable {
    /// Creates the event.
    package init() {}
}
