import HTTPRequester

/// The client side of the control endpoint, used by `rtc-h264 control`: one HTTP/1.1 request, one reply, over the
/// HTTP client the WHIP client uses too (`HTTPExchange`).
public enum ControlClient {
    /// Why a control request failed before a reply arrived.
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        /// The connection closed before a complete reply.
        case noReply
        /// The request could not be made or its reply not read: the address is not usable, the endpoint cannot be
        /// reached or did not answer in time, or its reply is not HTTP or larger than `maximumReplySize`.
        case failed(String)

        public var description: String {
            switch self {
            case .noReply: "the control endpoint closed the connection without a reply"
            case .failed(let reason): "the control request failed: \(reason)"
            }
        }
    }

    /// The most a request may wait to connect.
    static let connectTimeout = Duration.seconds(5)
    /// The most a whole request may take (connection, request, reply).
    static let requestTimeout = Duration.seconds(30)
    /// The largest reply read (a WHEP server's statistics hold one entry per viewer).
    static let maximumReplySize = 16 << 20

    /// Sends one command and waits for the reply.
    /// - Parameters:
    ///   - command: the command.
    ///   - host: the control endpoint's address (an IPv6 literal with or without brackets).
    ///   - port: its port.
    ///   - token: the bearer token the endpoint requires, if any (sent, never printed).
    /// - Returns: the reply's status and body.
    /// - Throws: `Error.noReply`, or `Error.failed` naming why.
    public static func send(_ command: ControlCommand, host: String, port: Int, token: String? = nil) async throws(Error)
        -> ControlReply
    {
        let (method, path, body): (String, String, String) = switch command {
        case .setBitrate(let bps): ("POST", "/bitrate", "{\"bitrate\":\(bps)}")
        case .setFrameRate(let fps): ("POST", "/framerate", "{\"fps\":\(fps)}")
        case .setDegradationPreference(let preference): ("POST", "/degradation-preference", "{\"preference\":\"\(preference)\"}")
        case .requestKeyframe: ("POST", "/keyframe", "")
        case .stats: ("GET", "/stats", "")
        case .metrics: ("GET", "/metrics", "")
        }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let url: HTTPURL
        do {
            url = try HTTPURL(parsing: "http://\(bracketed):\(port)\(path)")
        } catch {
            throw .failed("\(error)")
        }
        var request = HTTPExchange.Request(
            method: method, url: url, headers: [(name: "Content-Type", value: "application/json")], body: Array(body.utf8))
        if let token { request.headers.append((name: "Authorization", value: "Bearer \(token)")) }
        let response: HTTPExchange.Response
        do {
            response = try await HTTPExchange.perform(
                request, timeout: requestTimeout, connectTimeout: connectTimeout, maximumBodySize: maximumReplySize,
                tls: nil)
        } catch .noReply {
            throw .noReply
        } catch {
            throw .failed("\(error)")
        }
        return ControlReply(
            status: response.status, body: String(decoding: response.body, as: UTF8.self).trimmingWhitespace())
    }
}
