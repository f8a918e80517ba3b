import Foundation
import SDP
import Testing
import TestSupport

/// The command-line tool end to end: real processes, real sockets on loopback, real files.
@Suite(.serialized) struct CommandLineTests {
    // A real `rtc-h264` process (TestSupport's `RTCH264Tool`), waited for without holding a cooperative thread.
    static func start(_ arguments: [String]) throws -> ChildProcess { try RTCH264Tool.start(arguments) }

    static func run(_ arguments: [String]) async throws -> ChildProcess.Output { try await RTCH264Tool.run(arguments) }

    /// Starts `rtc-h264 serve --whep 127.0.0.1:<random port> --token-file <a new token> --size 320x240 --quiet` plus
    /// `extra`, and waits until its page answers 200.
    /// - Returns: the server, its port and its token (written to a file in `directory`).
    static func startServe(in directory: URL, extra: [String] = []) async throws -> (ChildProcess, Int, String, String) {
        let token = "whep-t0ken-\(UInt32.random(in: 1...UInt32.max))"
        let tokenFile = directory.appendingPathComponent("whep.token").path
        try token.write(toFile: tokenFile, atomically: true, encoding: .utf8)
        // A random port may be held by another suite's server (they run in parallel), which would answer the page
        // while this serve exits on its failed bind: a port counts once the page answers and this serve still runs
        // a moment later; else another port.
        var lastError = "no attempt"
        for _ in 0..<5 {
            let port = TestPorts.reserve()
            let server = try start([
                "serve", "--whep", "127.0.0.1:\(port)", "--token-file", tokenFile, "--size", "320x240", "--quiet",
            ] + extra)
            var page: Curl.Result?
            for _ in 0..<50 where page?.status != 200 && server.isRunning {
                try await Task.sleep(for: .milliseconds(100))
                page = try await Curl.request("http://127.0.0.1:\(port)/", caFile: nil, maximumSeconds: 2)
            }
            if page?.status == 200 {
                try await Task.sleep(for: .milliseconds(500))
                if server.isRunning { return (server, port, token, tokenFile) }
            }
            server.kill()
            let output = await server.finished()
            let answer = page.map { "\($0.status)" } ?? "no reply"
            lastError = "port \(port): page \(answer), serve \(output.status): \(output.stderr)"
        }
        Issue.record("serve did not start on any of 5 ports; the last: \(lastError)")
        throw CancellationError()
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rtc-h264-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Where a sender that needs no receiver sends (the discard port: nothing listens, ICMP errors are counted).
    static let nobodyListens = 9

    @Test(.timeLimit(.minutes(1)))
    func sendToReceiveWithAnSDPFileDecodesEveryFrameAndNeverPrintsTheKey() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = TestPorts.reserve()
        let sdp = dir.appendingPathComponent("stream.sdp").path
        let key = Data((0..<30).map { UInt8($0 &* 7 &+ 3) }).base64EncodedString()
        let sdpRun = try await Self.run(
            ["sdp", "--to", "127.0.0.1:\(port)", "--key", key, "--size", "320x240", "--ssrc", "4242"])
        #expect(sdpRun.status == 0, "\(sdpRun.stderr)")
        try sdpRun.stdout.write(toFile: sdp, atomically: true, encoding: .utf8)
        let description = try SessionDescription(parsing: sdpRun.stdout)
        #expect(description.crypto?.suite == "AES_CM_128_HMAC_SHA1_80")
        #expect(description.ssrc == 4242)
        #expect(description.parameterSets.count == 2)

        let output = dir.appendingPathComponent("out.y4m").path
        let receiver = try Self.start(["receive", "--listen", "127.0.0.1:\(port)", "--sdp", sdp, "--output", output, "--json"])
        defer { receiver.terminate() }
        try await Task.sleep(for: .milliseconds(500))
        let saved = dir.appendingPathComponent("sent.h264").path
        let senderSDP = dir.appendingPathComponent("sender.sdp").path
        let send = try await Self.run(
            ["send", "--to", "127.0.0.1:\(port)", "--key", key, "--size", "320x240", "--ssrc", "4242", "--frames", "45",
             "--save-annexb", saved, "--sdp", senderSDP])
        #expect(send.status == 0, "\(send.stderr)")
        let json = await receiver.finished().standardOutput  // ends on the sender's BYE
        let stats = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(stats["framesDecoded"] as? Int == 45)
        #expect(stats["byeReceived"] as? Bool == true)
        #expect(stats["srtpUnprotectFailures"] as? Int == 0)
        // 45 frames of 320x240 I420 behind a Y4M header.
        let y4m = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(y4m.count > 45 * 320 * 240 * 3 / 2)
        // The SDP the sender wrote is private, and the key appears nowhere else.
        let mode = try FileManager.default.attributesOfItem(atPath: senderSDP)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(!send.stderr.contains(key) && !send.stdout.contains(key))
        let inspect = try await Self.run(["inspect", "--json", saved])
        #expect(inspect.status == 0)
        #expect(inspect.stdout.contains("\"profileLevelID\" : \"42c01f\"") || inspect.stdout.contains("42c01f"))
    }

    @Test func encodeWritesAStreamThatInspectAccepts() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("e.h264").path
        let encode = try await Self.run(
            ["encode", "--pattern", "--size", "320x240", "--frames", "30", "--force-keyframe", "10,20", "--output", out,
             "--quiet"])
        #expect(encode.status == 0, "\(encode.stderr)")
        let inspect = try await Self.run(["inspect", "--json", out])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
        let units = try #require(json["accessUnits"] as? [[String: Any]])
        #expect(units.count == 30)
        let keyframes = units.enumerated().filter { $0.element["keyframe"] as? Bool == true }.map(\.offset)
        #expect(keyframes == [0, 10, 20])
    }

    /// `send`, `sdp` and `encode` take the encoder options from one group, so each lists all of them.
    @Test(arguments: ["send", "sdp", "encode"])
    func everyEncoderOptionIsListedByEachCommand(command: String) async throws {
        let help = try await Self.run([command, "--help"])
        #expect(help.status == 0)
        for option in ["--size", "--fps", "--profile", "--bitrate", "--max-bitrate", "--keyframe-interval",
                       "--keyframe-interval-duration", "--threads"] {
            #expect(help.stdout.contains("  \(option) <"), "\(command) --help lacks \(option)")
        }
    }

    /// `sdp` (and `send`, which shares its options) carries the transport-wide sequence number by default: ID 3, or
    /// the first one --abs-capture-time leaves free; --no-transport-cc leaves it out.
    @Test func theTransportWideSequenceNumberIsOnByDefault() async throws {
        let uri = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
        let plain = try await Self.run(["sdp", "--to", "127.0.0.1:5004", "--no-srtp"])
        #expect(plain.stdout.contains("a=extmap:3 \(uri)") && plain.stdout.contains("transport-cc"), "\(plain.stdout)")
        let moved = try await Self.run(["sdp", "--to", "127.0.0.1:5004", "--no-srtp", "--abs-capture-time", "3"])
        #expect(moved.stdout.contains("a=extmap:1 \(uri)"), "\(moved.stdout)")
        let off = try await Self.run(["sdp", "--to", "127.0.0.1:5004", "--no-srtp", "--no-transport-cc"])
        #expect(off.status == 0 && !off.stdout.contains(uri) && !off.stdout.contains("transport-cc"))
    }

    @Test(arguments: [
        (["send", "--to", "127.0.0.1:5004", "--size", "1920x1080"], "exceeds level 3.1 MaxFS 3600"),
        (["send", "--to", "127.0.0.1:5004", "--bitrate", "fast"], "The value 'fast' is invalid for '--bitrate"),
        (["send", "--to", "127.0.0.1:5004", "--key", "abc"], "the SRTP key of --key is not valid base64"),
        (["send", "--to", "127.0.0.1:5004", "--key", "AAAA"], "SRTP key"),
        (["send", "--to", "127.0.0.1:5004", "--size", "641x360"], "invalid frame size 641x360"),
        (["send", "--to", "127.0.0.1:5004", "--pt", "34"], "--pt must be 96-127"),
        (["send", "--to", "nowhere"], "--to"),
        (["send", "--to", "127.0.0.1:5004", "--packetization-mode", "0", "--mtu", "400"],
         "--mtu 400 leaves 350 bytes of RTP payload; packetization mode 0 needs at least 420 per NAL unit: use --mtu 470"),
        (["sdp", "--to", "[::1]:5004", "--packetization-mode", "0", "--mtu", "470", "--no-srtp"],
         "--mtu 470 leaves 410 bytes of RTP payload; packetization mode 0 needs at least 420 per NAL unit: use --mtu 480"),
        (["encode", "--pattern", "--output", "/dev/null", "--packetization-mode", "0", "--mtu", "400"],
         "maximum NAL unit size 350 is below the minimum 420 bytes"),
        (["encode", "--pattern", "--output", "/dev/null", "--profile", "main"], "The value 'main' is invalid for '--profile"),
        (["encode", "--pattern", "--output", "/dev/null", "--size", "1920x1080"], "exceeds level 3.1 MaxFS 3600"),
        (["encode", "--pattern", "--output", "/dev/null", "--level", "3.3"], "--level 3.3 is not one of"),
        (["sdp", "--to", "127.0.0.1:5004", "--fps", "90"], "frame rate 90.0 is outside the supported range"),
        (["sdp", "--to", "127.0.0.1:5004", "--transport-cc", "15"],
         "--transport-cc must be a header extension ID of 1-14 (RFC 8285 one-byte form)"),
        (["send", "--to", "127.0.0.1:5004", "--transport-cc", "0"],
         "--transport-cc must be a header extension ID of 1-14 (RFC 8285 one-byte form)"),
        (["sdp", "--to", "127.0.0.1:5004", "--transport-cc", "4", "--no-transport-cc"],
         "give --transport-cc ID or --no-transport-cc, not both"),
        (["send", "--to", "127.0.0.1:5004", "--abs-capture-time", "5", "--transport-cc", "5"],
         "--abs-capture-time and --transport-cc cannot share header extension ID 5"),
        (["send", "--to", "127.0.0.1:5004", "--start-bitrate", "10k"], "--start-bitrate must be at least --min-bitrate"),
        (["send", "--to", "127.0.0.1:5004", "--start-bitrate", "slow"], "The value 'slow' is invalid for '--start-bitrate"),
        (["receive", "--listen", "127.0.0.1:5004", "--no-srtp", "--jitter-buffer", "500", "--jitter-buffer-max", "400"],
         "--jitter-buffer-max must be 10-10000 ms and at least --jitter-buffer"),
        (["receive", "--listen", "127.0.0.1:5004"], "give --sdp, --key (with --suite), or --no-srtp"),
        (["receive", "--listen", "127.0.0.1:5004", "--no-srtp", "--output", "o.y4m", "--output-size", "641x360"],
         "--output-size: invalid size '641x360' (WxH with even dimensions of 2-16384 and at most 35651584 pixels)"),
        (["receive", "--listen", "127.0.0.1:5004", "--no-srtp", "--output", "o.y4m", "--output-size", "0x0"],
         "--output-size: invalid size '0x0'"),
        (["receive", "--listen", "127.0.0.1:5004", "--no-srtp", "--output", "o.y4m", "--output-size", "16384x16384"],
         "--output-size: invalid size '16384x16384'"),
        (["receive", "--listen", "127.0.0.1:5004", "--no-srtp", "--output", "o.h264", "--output-size", "640x360"],
         "--output-size needs a Y4M --output (a name ending in .y4m)"),
        (["receive"], "give --listen HOST:PORT (or --whep URL)"),
        (["receive", "--whep", "http://127.0.0.1:8080/whep", "--listen", "127.0.0.1:5004", "--no-srtp"],
         "--whep cannot be used with --listen, --no-srtp: the answer and DTLS decide them"),
        (["receive", "--whep", "http://127.0.0.1:8080/whep", "--sessions", "0"], "--sessions must be 1-1000"),
        (["receive", "--whep", "http://127.0.0.1:8080/whep", "--sessions", "2", "--output", "o.h264"],
         "--output takes one session's stream: not with --sessions"),
        (["receive", "--whep", "http://127.0.0.1:8080/whep", "--join-interval", "11"], "--join-interval must be 0-10 seconds"),
        (["receive", "--whep", "http://127.0.0.1:8080/whep", "--no-decode", "--output", "o.y4m"],
         "--no-decode writes no pictures: give an Annex-B --output (not .y4m), or decode"),
        (["receive", "--whep", "ftp://127.0.0.1/whep"], "--whep: WHEP URL scheme 'ftp' is not supported"),
        (["receive", "--whep", "http://192.0.2.1:8080/whep", "--token", "t"], "--whep:"),
        (["receive", "--listen", "127.0.0.1:5004", "--no-srtp", "--sessions", "2"],
         "--token, --token-file, --ca-file, --sessions and --join-interval need --whep"),
        (["receive", "--listen", "127.0.0.1:5004", "--no-srtp", "--ice-server", "stun:127.0.0.1"],
         "--ice-server, --ice-username, --ice-credential and --ice-credential-file need --whep"),
        (["control", "--to", "127.0.0.1:9", "bitrate", "fast"], "bitrate:"),
        // The options send shares with serve (SenderPolicyOptions, ControlEndpointOptions): the same messages.
        (["send", "--to", "127.0.0.1:5004", "--mtu", "100"], "--mtu must be between 200 and 65000"),
        (["send", "--to", "127.0.0.1:5004", "--keyframe-throttle=-1"], "--keyframe-throttle must be 0-3600000 ms"),
        (["send", "--to", "127.0.0.1:5004", "--min-bitrate", "fast"], "The value 'fast' is invalid for '--min-bitrate"),
        (["send", "--to", "127.0.0.1:5004", "--degradation-preference", "fastest"],
         "The value 'fastest' is invalid for '--degradation-preference"),
        (["send", "--to", "127.0.0.1:5004", "--rtx", "--no-nack"], "--rtx needs NACK (remove --no-nack)"),
        (["send", "--to", "127.0.0.1:5004", "--fec-ssrc", "5"], "--fec-ssrc needs --fec"),
        (["sdp", "--to", "127.0.0.1:5004", "--fec", "--fec-pt", "96"],
         "--fec-pt must be 35-63 or 96-127 and differ from --pt and --rtx-pt"),
        (["send", "--to", "127.0.0.1:5004", "--fec", "--fec-pt", "70"],
         "--fec-pt must be 35-63 or 96-127 and differ from --pt and --rtx-pt"),
        (["receive", "--listen", "127.0.0.1:5004", "--no-srtp", "--fec-pt", "20"],
         "--fec-pt must be 35-63 or 96-127 and differ from --rtx-pt"),
        (["send", "--to", "127.0.0.1:5004", "--control", "10.20.30.40:8090"],
         "the control endpoint on 10.20.30.40 is reachable beyond this machine: give it a token (--control-token or --control-token-file)"),
        // Issue 20, item 4: a name that starts like a loopback address is not one.
        (["send", "--to", "127.0.0.1:5004", "--control", "127.0.0.1.example:18777"],
         "the control endpoint on 127.0.0.1.example is reachable beyond this machine: give it a token"),
        (["send", "--to", "127.0.0.1:5004", "--control-token", "abc"], "--control-token needs --control"),
        (["send", "--to", "127.0.0.1:5004", "--control", "8090", "--control-token", "a", "--control-token-file", "f"],
         "give --control-token or --control-token-file, not both"),
    ])
    func badArgumentsAreClearErrorsBeforeAnythingStarts(arguments: [String], message: String) async throws {
        let result = try await Self.run(arguments)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
    }
}
