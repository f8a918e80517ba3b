#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Codec

/// The control endpoint's requests as values: path, method and body in, a `ControlCommand` or the error reply out.
/// Pure (no NIO, no sender), so that it is unit-tested by table and fuzzed as it is (Tests/Fuzz, target `json`).
public enum ControlRequestParser {
    /// Turns an HTTP request into a command, or into the error reply it deserves. Pure.
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - path: the request path (query ignored).
    ///   - body: the request body.
    /// - Returns: the command, or the reply explaining why there is none.
    public static func command(method: String, path: String, body: [UInt8]) -> Result<ControlCommand, ControlReplyError> {
        let route = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        let routes: [String: String] = ["/bitrate": "POST", "/framerate": "POST", "/degradation-preference": "POST",
                                        "/keyframe": "POST", "/stats": "GET", "/metrics": "GET"]
        guard let expectedMethod = routes[route] else {
            return .failure(ControlReplyError(.error(
                404, "unknown path \(route); use /bitrate, /framerate, /degradation-preference, /keyframe, /stats or /metrics")))
        }
        guard method == expectedMethod else {
            return .failure(ControlReplyError(.error(405, "\(route) takes \(expectedMethod)")))
        }
        switch route {
        case "/keyframe": return .success(.requestKeyframe)
        case "/stats": return .success(.stats)
        case "/metrics": return .success(.metrics)
        case "/bitrate":
            return value(in: body, key: "bitrate").flatMap { text in
                Result { try RateParser.bitrate(text) }
                    .map { ControlCommand.setBitrate($0) }
                    .mapError { ControlReplyError(.error(400, "bitrate: \($0)")) }
            }
        case "/degradation-preference":
            return value(in: body, key: "preference").flatMap { text in
                DegradationPreference.parse(text)
                    .map { ControlCommand.setDegradationPreference($0) }
                    .mapError { ControlReplyError(.error(400, "degradation-preference: \($0)")) }
            }
        default:
            return value(in: body, key: "fps").flatMap { text in
                Result { try RateParser.frameRate(text) }
                    .map { ControlCommand.setFrameRate($0) }
                    .mapError { ControlReplyError(.error(400, "framerate: \($0)")) }
            }
        }
    }

    private static func value(in body: [UInt8], key: String) -> Result<String, ControlReplyError> {
        let text = String(decoding: body, as: UTF8.self).trimmingWhitespace()
        guard !text.isEmpty else { return .failure(ControlReplyError(.error(400, "missing body: send {\"\(key)\": ...}"))) }
        guard text.first == "{" else { return .success(text) }
        guard let object = try? JSONDecoder().decode([String: JSONScalar].self, from: Data(body)) else {
            return .failure(ControlReplyError(.error(400, "body is not a JSON object of strings and numbers")))
        }
        guard let value = object[key] else {
            return .failure(ControlReplyError(.error(400, "missing \"\(key)\" in the JSON body")))
        }
        return .success(value.text)
    }
}

/// A reply that ends a control request early (unknown path, bad value).
public struct ControlReplyError: Error, Sendable, Equatable {
    /// The reply to send.
    public var reply: ControlReply
    init(_ reply: ControlReply) { self.reply = reply }
}

/// A JSON string or number, kept as text for `RateParser`.
struct JSONScalar: Decodable {
    var text: String
    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            text = string
        } else if let integer = try? container.decode(Int.self) {
            text = String(integer)
        } else {
            text = String(try container.decode(Double.self))
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        String(self.drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }
}

