import Codec
import Foundation
import Testing
import TestSupport
@testable import Control
import Sender
import Video

/// `GET /metrics` (issue 26, item 2): the sender's statistics as Prometheus text, checked by Prometheus's own parser
/// (`promtool check metrics`), with values equal to `/stats`'.
@Suite(.serialized) struct ControlMetricsTests {
    static let promtool = "/usr/bin/promtool"

    /// Runs `promtool check metrics` on `text`; its complaints, or nil when clean.
    static func promtoolProblems(_ text: String) async throws -> String? {
        guard FileManager.default.isExecutableFile(atPath: promtool) else {
            return "promtool not found: install Debian's prometheus (apt-get install prometheus; Tests/install-deps.sh does)"
        }
        let output = try await ChildProcess.run(URL(fileURLWithPath: promtool), ["check", "metrics"],
                                                standardInput: Data(text.utf8))
        return output.status == 0 ? nil : output.stdout + output.stderr
    }

    /// The value of the unlabelled sample `name` in `text`.
    static func value(_ name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }

    @Test func aSendersMetricsParseAndMatchItsStatistics() async throws {
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: 9,
            encoder: EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 500_000))
        configuration.localHost = "127.0.0.1"
        let sender = try await H264Sender(configuration: configuration)
        let server = try await ControlServer(host: "127.0.0.1", port: 0, token: nil, sender: sender)
        let pump = FramePump(source: try PatternSource(width: 320, height: 240), sender: sender, pacing: .asFastAsPossible,
                             frameLimit: 20)
        _ = try await pump.run()
        try await Task.sleep(for: .milliseconds(200))

        let reply = try await ControlClient.send(.metrics, host: "127.0.0.1", port: server.localPort)
        let stats = await sender.statistics()
        #expect(reply.status == 200)
        let text = reply.body + "\n"
        if let problems = try await Self.promtoolProblems(text) { Issue.record("promtool: \(problems)\n\(text)") }
        #expect(text.contains("# TYPE rtc_h264_outbound_frames_sent_total counter"))
        #expect(text.contains("# TYPE rtc_h264_outbound_target_bitrate_bps gauge"))
        #expect(Self.value("rtc_h264_outbound_frames_sent_total", in: text) == Double(stats.framesSent))
        #expect(Self.value("rtc_h264_outbound_frames_encoded_total", in: text) == Double(stats.framesEncoded))
        #expect(Self.value("rtc_h264_outbound_packets_sent_total", in: text) == Double(stats.packetsSent))
        #expect(Self.value("rtc_h264_outbound_target_bitrate_bps", in: text) == 500_000)
        #expect(stats.framesSent >= 20)
        // No RTT before a receiver report: the gauge is absent rather than a made-up zero.
        #expect(!text.contains("rtc_h264_outbound_round_trip_time_seconds"))

        // The raw reply names the exposition format.
        let raw = try await RawHTTP.exchange(
            port: server.localPort, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", receiveTimeout: 5)
        #expect(raw.text.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8"), "\(raw.text.prefix(200))")
        // POST is not a scrape.
        let post = try await RawHTTP.exchange(
            port: server.localPort, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            receiveTimeout: 5)
        #expect(post.text.hasPrefix("HTTP/1.1 405"))
        await server.close()
        _ = try await sender.finish()
    }

    /// A scrape flood (issue 26, bad input): 8 clients from one address scraping 25 times each, back to back, meet
    /// the control endpoint's own limits (8 connections per address): every reply is a whole 200 scrape or a 503 with
    /// `Retry-After`, none hangs, and afterwards the endpoint scrapes and the sender streams as before.
    @Test(.timeLimit(.minutes(1)))
    func aScrapeFloodMeetsTheEndpointsLimitsAndLosesNothing() async throws {
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: 9,
            encoder: EncoderConfiguration(width: 160, height: 96, frameRate: 30, targetBitrate: 200_000))
        configuration.localHost = "127.0.0.1"
        let sender = try await H264Sender(configuration: configuration)
        let server = try await ControlServer(host: "127.0.0.1", port: 0, token: nil, sender: sender)
        let port = server.localPort
        let pump = FramePump(source: try PatternSource(width: 160, height: 96), sender: sender, pacing: .realTime)
        let pumping = Task { try await pump.run() }
        let statuses = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var seen: [String] = []
                    for _ in 0..<25 {
                        let reply = try await RawHTTP.exchange(
                            port: port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", receiveTimeout: 5)
                        if reply.text.hasPrefix("HTTP/1.1 200") {
                            seen.append(reply.text.contains("rtc_h264_outbound_frames_sent_total") ? "200" : "200 without the series")
                        } else if reply.text.hasPrefix("HTTP/1.1 503") {
                            seen.append(reply.text.contains("Retry-After: 5") ? "503" : "503 without Retry-After")
                        } else {
                            seen.append(String(reply.text.prefix(40)))
                        }
                    }
                    return seen
                }
            }
            var all: [String] = []
            for try await seen in group { all += seen }
            return all
        }
        let counts = Dictionary(statuses.map { ($0, 1) }, uniquingKeysWith: +)
        #expect(statuses.count == 200)
        #expect(Set(counts.keys).isSubset(of: ["200", "503"]), "replies other than a scrape or a 503: \(counts)")
        #expect((counts["200"] ?? 0) >= 100, "\(counts)")
        let before = await sender.statistics().framesSent
        try await Task.sleep(for: .milliseconds(300))
        let after = try await ControlClient.send(.metrics, host: "127.0.0.1", port: port)
        #expect(after.status == 200)
        #expect(await sender.statistics().framesSent > before, "the sender stopped during the flood")
        pump.stop()
        _ = try? await pumping.value
        await server.close()
        _ = try await sender.finish()
    }

    /// A simulcast sender's scrape has one series per encoding, labelled with its rid, equal to its statistics.
    @Test func simulcastEncodingsHaveSeriesOfTheirOwn() async throws {
        var stats = SenderStats()
        stats.simulcastLayers = [
            SimulcastLayerStats(rid: "q", ssrc: 1),
            SimulcastLayerStats(rid: "f", ssrc: 2),
        ]
        stats.simulcastLayers?[0].framesSent = 41
        stats.simulcastLayers?[0].frameWidth = 320
        stats.simulcastLayers?[1].framesSent = 40
        stats.simulcastLayers?[1].active = false
        stats.lossFastCuts = 2
        let text = PrometheusExposition().text(stats.metricSamples(labels: [.init("viewer", "v1")]))
        #expect(text.contains("# TYPE rtc_h264_outbound_layer_frames_sent_total counter"))
        #expect(text.contains("rtc_h264_outbound_loss_fast_cuts_total{viewer=\"v1\"} 2"), "\(text)")
        #expect(text.contains("rtc_h264_outbound_layer_frames_sent_total{viewer=\"v1\",rid=\"q\"} 41"), "\(text)")
        #expect(text.contains("rtc_h264_outbound_layer_frames_sent_total{viewer=\"v1\",rid=\"f\"} 40"))
        #expect(text.contains("rtc_h264_outbound_layer_frame_width_pixels{viewer=\"v1\",rid=\"q\"} 320"))
        #expect(text.contains("rtc_h264_outbound_layer_active{viewer=\"v1\",rid=\"f\"} 0"))
        #expect(text.contains("rtc_h264_outbound_layer_active{viewer=\"v1\",rid=\"q\"} 1"))
        if let problems = try await Self.promtoolProblems(text) { Issue.record("promtool: \(problems)\n\(text)") }
        // Without simulcast there is no layer series.
        #expect(!PrometheusExposition().text(SenderStats().metricSamples()).contains("_layer_"))
    }

    @Test func samplesThatDisagreeWithTheirNameAreLeftOutNotFatal() async throws {
        let text = PrometheusExposition().text([
            MetricSample(name: "x_total", help: "X.", kind: .counter, value: 3),
            MetricSample(name: "x_total", help: "X.", kind: .gauge, value: 4),  // another kind
            MetricSample(name: "x_total", help: "Other.", kind: .counter, value: 5),  // another help
            MetricSample(name: "x_total", help: "X.", kind: .counter, labels: [.init("viewer", "a")], value: 6),
            MetricSample(name: "y", help: "Y.", kind: .gauge, labels: [.init("viewer", "quote\" and \\ and\nline")],
                         value: 1.5),
        ])
        #expect(Self.value("x_total", in: text) == 3)
        #expect(!text.contains("x_total 4") && !text.contains("x_total 5") && !text.contains("viewer=\"a\""))
        if let problems = try await Self.promtoolProblems(text) { Issue.record("promtool: \(problems)\n\(text)") }
    }
}

    @Test func seriesFollowTheStatisticsAcrossScrapes() async throws {
        let exposition = PrometheusExposition()
        func scrape(_ samples: [MetricSample]) -> String { exposition.text(samples) }
        func frames(_ viewer: String, _ value: Double) -> MetricSample {
            MetricSample(name: "f_total", help: "F.", kind: .counter, labels: [.init("viewer", viewer)], value: value)
        }
        _ = scrape([frames("a", 10), frames("b", 5)])
        let second = scrape([frames("a", 25), frames("b", 7)])
        #expect(second.contains("f_total{viewer=\"a\"} 25") && second.contains("f_total{viewer=\"b\"} 7"), "\(second)")
        // b left; a restarted under the same label (a new session counts from zero).
        let third = scrape([frames("a", 3)])
        #expect(third.contains("f_total{viewer=\"a\"} 3") && !third.contains("viewer=\"b\""), "\(third)")
    }
