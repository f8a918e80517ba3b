import Codec
@testable import Control
import Testing

/// The control endpoint's requests as values (`ControlRequestParser`, pure): each well-formed request is its command,
/// each bad one gets its own status and message.
@Suite struct ControlRequestParserTests {
    @Test(arguments: [
        ("POST", "/bitrate", "{\"bitrate\":\"800k\"}", ControlCommand.setBitrate(800_000)),
        ("POST", "/bitrate", "{\"bitrate\":1200000}", ControlCommand.setBitrate(1_200_000)),
        ("POST", "/bitrate", "1.5M", ControlCommand.setBitrate(1_500_000)),
        ("POST", "/framerate", "{\"fps\":15}", ControlCommand.setFrameRate(15)),
        ("POST", "/framerate", "29.97", ControlCommand.setFrameRate(29.97)),
        ("POST", "/keyframe", "", ControlCommand.requestKeyframe),
        ("POST", "/degradation-preference", "{\"preference\":\"balanced\"}", ControlCommand.setDegradationPreference(.balanced)),
        ("POST", "/degradation-preference", "maintain-resolution", ControlCommand.setDegradationPreference(.maintainResolution)),
        ("POST", "/degradation-preference", " Maintain-Framerate\n", ControlCommand.setDegradationPreference(.maintainFramerate)),
        ("GET", "/stats", "", ControlCommand.stats),
        ("GET", "/stats?pretty", "", ControlCommand.stats),
    ])
    func wellFormedRequestsBecomeCommands(method: String, path: String, body: String, command: ControlCommand) {
        #expect(ControlRequestParser.command(method: method, path: path, body: Array(body.utf8)) == .success(command))
    }

    @Test(arguments: [
        ("POST", "/nope", "", 404, "unknown path /nope; use /bitrate, /framerate, /degradation-preference, /keyframe, /stats or /metrics"),
        ("GET", "/bitrate", "", 405, "/bitrate takes POST"),
        ("POST", "/stats", "", 405, "/stats takes GET"),
        ("POST", "/bitrate", "", 400, "missing body: send {\"bitrate\": ...}"),
        ("POST", "/bitrate", "{\"rate\":5}", 400, "missing \"bitrate\" in the JSON body"),
        ("POST", "/bitrate", "{bad json", 400, "body is not a JSON object of strings and numbers"),
        ("POST", "/bitrate", "fast", 400, "bitrate: 'fast' is not a rate (examples: 1.5M, 800k, 1500000)"),
        ("POST", "/bitrate", "{\"bitrate\":0}", 400, "bitrate: '0' must be greater than zero"),
        ("POST", "/framerate", "{\"fps\":-3}", 400, "framerate: '-3' must be greater than zero"),
        ("GET", "/degradation-preference", "", 405, "/degradation-preference takes POST"),
        ("POST", "/degradation-preference", "", 400, "missing body: send {\"preference\": ...}"),
        ("POST", "/degradation-preference", "{\"mode\":\"balanced\"}", 400, "missing \"preference\" in the JSON body"),
        ("POST", "/degradation-preference", "fastest", 400,
         "degradation-preference: unknown preference 'fastest'; use maintain-framerate, maintain-resolution or balanced"),
        ("POST", "/degradation-preference", "{\"preference\":3}", 400,
         "degradation-preference: unknown preference '3'; use maintain-framerate, maintain-resolution or balanced"),
        ("POST", "/degradation-preference", String(repeating: "x", count: 5000), 400,
         "degradation-preference: unknown preference '\(String(repeating: "x", count: 40))...'; use maintain-framerate, maintain-resolution or balanced"),
    ])
    func badRequestsGetASpecificError(method: String, path: String, body: String, status: Int, message: String) {
        let result = ControlRequestParser.command(method: method, path: path, body: Array(body.utf8))
        #expect(result == .failure(ControlReplyError(.error(status, message))))
    }
}
