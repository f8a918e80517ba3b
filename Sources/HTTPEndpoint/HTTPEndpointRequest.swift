import NIOHTTP1

/// A request gathered whole: its head, its body (empty when over the limit), and whether the body was over the limit.
package struct HTTPEndpointRequest: Sendable {
    /// Method, target, version, headers.
    package var head: HTTPRequestHead
    /// The body (dropped when `bodyTooLarge`).
    package var body: [UInt8]
    /// Whether the body exceeded the endpoint's limit.
    package var bodyTooLarge: Bool
}
