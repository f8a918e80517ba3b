import Foundation
import Testing
import TestSupport

/// How `send` ends on signals (swift-service-lifecycle's graceful shutdown): the first SIGINT stops the source, the
/// control endpoint and then the sender (BYE); a second one ends the process at once, even when the source is stuck
/// in a read that never returns.
@Suite(.serialized) struct ShutdownCommandLineTests {
    @Test(.timeLimit(.minutes(1)))
    func aSecondSignalEndsASendStuckOnItsInputAtOnce() async throws {
        let dir = try CommandLineTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("camera.y4m").path
        let stats = dir.appendingPathComponent("stats.jsonl").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Held open for writing (O_RDWR does not wait for a reader): one frame, then nothing, as a stalled camera.
        let writer = open(fifo, O_RDWR)
        #expect(writer >= 0)
        defer { close(writer) }
        var stream = Array("YUV4MPEG2 W160 H96 F30:1 Ip A1:1 C420jpeg\nFRAME\n".utf8)
        stream += [UInt8](repeating: 128, count: 160 * 96 * 3 / 2)
        #expect(stream.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } == stream.count)
        let process = try CommandLineTests.start([
            "send", "--to", "127.0.0.1:\(CommandLineTests.nobodyListens)", "--no-srtp", "--input", fifo, "--quiet",
            "--stats", stats,
        ])
        defer { process.kill() }
        let streaming = await Poll.until(seconds: 30, every: .milliseconds(50)) {
            ((try? String(contentsOfFile: stats, encoding: .utf8)) ?? "").contains("\n")
        }
        #expect(streaming, "send wrote no report in 30 s")
        #expect(process.isRunning, "send ended before any signal")
        process.interrupt()
        try await Task.sleep(for: .seconds(1))
        #expect(process.isRunning, "the graceful shutdown cannot finish while the source is stuck in its read")
        let second = ContinuousClock.now
        process.interrupt()
        let ended = await process.finished()
        let took = ContinuousClock.now - second
        #expect(ended.status == 130, "\(ended.stderr)")
        #expect(ended.stderr.contains("a second signal: exiting at once"), "\(ended.stderr)")
        #expect(took < .seconds(5), "the second signal took \(took) to end send")
    }

    @Test(.timeLimit(.minutes(1)))
    func oneSignalEndsASendGracefullyWithItsSummary() async throws {
        let dir = try CommandLineTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stats = dir.appendingPathComponent("stats.jsonl").path
        let process = try CommandLineTests.start([
            "send", "--to", "127.0.0.1:\(CommandLineTests.nobodyListens)", "--no-srtp", "--size", "160x96",
            "--control", "127.0.0.1:0", "--stats", stats,
        ])
        defer { process.kill() }
        // Signalled once it streams (its first report), however slowly a loaded machine starts it.
        let streaming = await Poll.until(seconds: 30, every: .milliseconds(50)) {
            ((try? String(contentsOfFile: stats, encoding: .utf8)) ?? "").contains("\n")
        }
        #expect(streaming, "send wrote no report in 30 s")
        process.terminate()
        let ended = await process.finished()
        #expect(ended.status == 0, "\(ended.stderr)")
        #expect(ended.stderr.contains("sent "), "no summary after SIGTERM: \(ended.stderr)")
        #expect(!ended.stderr.contains("exiting at once"))
    }
}
