import Foundation
import Testing
import TestSupport

/// `rtc-h264 encode` as a user runs it: a real process, real files. Issue 11 item 1: every bad number on the command
/// line is a usage error (exit status 64) naming the flag, never a crash. On 9c36cd3 `--bitrate=-1e30`,
/// `--bitrate 9e18`, `--keyframe-interval-duration 1e300`/`nan`, `--level 1e300` and `--size 4611686018427387904x16`
/// killed the process with SIGILL.
@Suite(.serialized) struct EncodeCommandLineTests {
    /// The usage error status ArgumentParser exits with (EX_USAGE).
    static let usageError: Int32 = 64

    // The process helpers are CommandLineTests' (a real `rtc-h264` process, real files).
    static func run(_ arguments: [String]) async throws -> ChildProcess.Output { try await CommandLineTests.run(arguments) }

    static func temporaryDirectory() throws -> URL { try CommandLineTests.temporaryDirectory() }

    /// Bad flags and the text the error must contain (the flag, and for range checks the range).
    static let badFlags: [([String], String)] = [
        (["--bitrate=-1e30"], "The value '-1e30' is invalid for '--bitrate <bitrate>'"),
        (["--bitrate", "9e18"], "The value '9e18' is invalid for '--bitrate <bitrate>'"),
        (["--bitrate", "nan"], "The value 'nan' is invalid for '--bitrate <bitrate>'"),
        (["--bitrate", "inf"], "The value 'inf' is invalid for '--bitrate <bitrate>'"),
        (["--bitrate=-inf"], "The value '-inf' is invalid for '--bitrate <bitrate>'"),
        (["--bitrate", "0"], "The value '0' is invalid for '--bitrate <bitrate>'"),
        (["--bitrate", ""], "The value '' is invalid for '--bitrate <bitrate>'"),
        (["--bitrate", "9223372036854775807"], "The value '9223372036854775807' is invalid for '--bitrate <bitrate>'"),
        (["--bitrate", String(repeating: "9", count: 5000)], "is invalid for '--bitrate <bitrate>'"),
        (["--max-bitrate=-1e30"], "The value '-1e30' is invalid for '--max-bitrate <max-bitrate>'"),
        (["--bitrate", "14M", "--max-bitrate", "1M"], "--max-bitrate 1 Mbit/s is below --bitrate 14 Mbit/s"),
        (["--bitrate", "20M"],
         "--bitrate/--max-bitrate: bitrate 20000000 bit/s exceeds level 3.1 MaxBR 14000000 bit/s for Constrained Baseline"),
        (["--keyframe-interval-duration", "1e300"], "--keyframe-interval-duration 1e+300 is outside (0, 86400] seconds"),
        (["--keyframe-interval-duration", "nan"], "--keyframe-interval-duration nan is outside (0, 86400] seconds"),
        (["--keyframe-interval-duration", "inf"], "--keyframe-interval-duration inf is outside (0, 86400] seconds"),
        (["--keyframe-interval-duration", "0"], "--keyframe-interval-duration 0.0 is outside (0, 86400] seconds"),
        (["--keyframe-interval-duration=-5"], "--keyframe-interval-duration -5.0 is outside (0, 86400] seconds"),
        (["--keyframe-interval-duration", "0.0001"], "--keyframe-interval-duration 0.0001 is below one millisecond"),
        (["--keyframe-interval", "0"], "--keyframe-interval 0 must be a positive number of frames"),
        (["--keyframe-interval=-9223372036854775808"],
         "--keyframe-interval -9223372036854775808 must be a positive number of frames"),
        (["--keyframe-interval", "99999999999999999999"], "The value '99999999999999999999' is invalid for '--keyframe-interval"),
        (["--fps", "nan"], "--fps: frame rate nan is outside the supported range 1.0...60.0"),
        (["--fps", "inf"], "--fps: frame rate inf is outside the supported range 1.0...60.0"),
        (["--fps", "0"], "--fps: frame rate 0.0 is outside the supported range 1.0...60.0"),
        (["--fps", "1e300"], "--fps: frame rate 1e+300 is outside the supported range 1.0...60.0"),
        (["--threads", "99999999999999"], "--threads 99999999999999 is outside 1...4"),
        (["--threads", "0"], "--threads 0 is outside 1...4"),
        (["--size", "4611686018427387904x16"], "The value '4611686018427387904x16' is invalid for '--size <size>'"),
        (["--size", "0x0"], "The value '0x0' is invalid for '--size <size>'"),
        (["--size", "16384x16384"], "--size: a dimension of 1024 macroblocks exceeds level 3.1 limit"),
        (["--size", "1920x1080"], "--size: frame of 8160 macroblocks exceeds level 3.1 MaxFS 3600 macroblocks"),
        (["--size", "321x240"], "--size: invalid frame size 321x240 (even dimensions of at least 16 needed)"),
        (["--size", "8x8"], "--size: invalid frame size 8x8 (even dimensions of at least 16 needed)"),
        (["--level", "1e300"], "--level 1e300 is not one of 3, 3.1, 3.2, 4, 4.1, 4.2, 5, 5.1"),
        (["--level", "nan"], "--level nan is not one of 3, 3.1, 3.2, 4, 4.1, 4.2, 5, 5.1"),
        (["--level=-inf"], "--level -inf is not one of"),
        (["--mtu", "0"], "--mtu 0 is outside 1...65535"),
        (["--mtu=-9223372036854775808"], "--mtu -9223372036854775808 is outside 1...65535"),
        (["--packetization-mode", "0", "--mtu", "400"], "--mtu: maximum NAL unit size 350 is below the minimum 420 bytes"),
        (["--bitrate-at", "5:-1e30"], "The value '5:-1e30' is invalid for '--bitrate-at <bitrate-at>'"),
        (["--bitrate-at", "1:20M"], "--bitrate-at (frame 1): bitrate 20000000 bit/s exceeds level 3.1 MaxBR"),
        (["--frames", "0"], "--frames must be positive"),
        (["--degradation-preference", "maintain-quality"],
         "The value 'maintain-quality' is invalid for '--degradation-preference <degradation-preference>'"),
        (["--bitrate-at", "1:9999"], "--bitrate-at (frame 1): bitrate 9999 bit/s is below the minimum 10000 bit/s"),
        (["--qp-range", "0-51"], "--qp-range 0-51 is not MIN-MAX within 12-51"),
        (["--qp-range", "40-20"], "--qp-range 40-20 is not MIN-MAX within 12-51"),
        (["--qp-range", "99999999999999999999-1"], "--qp-range 99999999999999999999-1 is not MIN-MAX within 12-51"),
        (["--temporal-layers", "4"], "--temporal-layers: 4 temporal layers is outside 1...3"),
        (["--temporal-layers", "0"], "--temporal-layers: 0 temporal layers is outside 1...3"),
        (["--temporal-layers", "99999999999999999999"], "The value '99999999999999999999' is invalid for '--temporal-layers"),
    ]

    @Test(arguments: badFlags)
    func badFlagsAreUsageErrorsNamingTheFlag(flags: [String], message: String) async throws {
        let result = try await Self.run(
            ["encode", "--pattern", "--size", "320x240", "--frames", "3", "--output", "/dev/null"] + flags)
        #expect(result.reason == .exit, "\(flags) ended by a signal: \(result.status)")
        #expect(result.status == Self.usageError, "\(flags): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(flags): \(result.stderr)")
    }

    @Test func goodFlagsAtTheEdgesEncode() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.h264").path
        let result = try await Self.run(
            ["encode", "--pattern", "--size", "320x240", "--frames", "10", "--output", output, "--bitrate", "14M",
             "--max-bitrate", "14M", "--keyframe-interval-duration", "86400", "--keyframe-interval", "9223372036854775807",
             "--fps", "60", "--threads", "4", "--level", "31", "--bitrate-at", "5:10k", "--qp-range", "12-51",
             "--temporal-layers", "3"])
        #expect(result.reason == .exit)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("encoded 10 frames 320x240"), "\(result.stderr)")
        let size = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int ?? 0
        #expect(size > 1000)
    }

    /// Issue 13: `--no-denoise` reaches the encoder (the pattern's noise band makes the two bitstreams differ).
    @Test func noDenoiseChangesTheBitstream() async throws {
        var sizes: [Int] = []
        var bytes: [Data] = []
        for flags in [[], ["--no-denoise"]] {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("denoise-\(UUID().uuidString).h264").path
            defer { try? FileManager.default.removeItem(atPath: output) }
            let result = try await Self.run(
                ["encode", "--pattern", "--size", "320x240", "--frames", "10", "--output", output] + flags)
            #expect(result.status == 0, "\(flags): \(result.stderr)")
            let data = try Data(contentsOf: URL(fileURLWithPath: output))
            sizes.append(data.count)
            bytes.append(data)
        }
        #expect(sizes.allSatisfy { $0 > 1000 }, "\(sizes)")
        #expect(bytes[0] != bytes[1], "--no-denoise produced the same bitstream")
    }

    /// Issue 13: `encode` adapts the resolution by default; a bitrate step down and back up gives three SPS (720p,
    /// 360p, 720p), all with the configured profile-level-id, every frame in the file, the switches in the summary.
    @Test func encodeAdaptsTheResolutionByDefault() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("adaptive.h264").path
        let result = try await Self.run(["encode", "--pattern", "--frames", "480", "--bitrate", "2.5M", "--bitrate-at",
                                         "100:300k", "--bitrate-at", "200:2.5M", "--output", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("""
            resolution: 1280x720 from frame 0 (initial), 640x360 from frame 100 (bitrate-below-floor), \
            1280x720 from frame 320 (bitrate-allows-larger)
            """), "\(result.stderr)")
        let inspect = try await Self.run(["inspect", "--json", output])
        #expect(inspect.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
        let parameterSets = try #require(json["sequenceParameterSets"] as? [[String: Any]])
        #expect(parameterSets.map { "\($0["width"] ?? "?")x\($0["height"] ?? "?")" } == ["1280x720", "640x360", "1280x720"])
        #expect(parameterSets.allSatisfy { $0["profileLevelId"] as? String == "42c01f" })
        let units = try #require(json["accessUnits"] as? [[String: Any]])
        #expect(units.count >= 470, "\(units.count) access units of 480 frames")
        #expect(units.filter { $0["keyframe"] as? Bool == true }.count == 3)
    }

    @Test func maintainResolutionKeepsTheSizeAndSkips() async throws {
        let result = try await Self.run(["encode", "--pattern", "--frames", "60", "--bitrate", "100k",
                                         "--degradation-preference", "maintain-resolution", "--output", "/dev/null"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("resolution: 1280x720 from frame 0 (initial)\n"), "\(result.stderr)")
        #expect(result.stderr.contains("rate control (buffer full)"), "\(result.stderr)")
        let balanced = try await Self.run(["encode", "--pattern", "--frames", "30", "--bitrate", "100k",
                                           "--degradation-preference", "balanced", "--output", "/dev/null"])
        #expect(balanced.stderr.contains("resolution: 640x360 from frame 0 (initial)\n"), "\(balanced.stderr)")
    }

    /// A rate or size from the input file that the encoder refuses is named as the input's, not as a flag.
    @Test func limitsBrokenByTheInputNameTheInput() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("fast.y4m").path
        var file = Data("YUV4MPEG2 W16 H16 F1000:1 Ip A1:1 C420jpeg\nFRAME\n".utf8)
        file.append(Data(count: 16 * 16 * 3 / 2))
        try file.write(to: URL(fileURLWithPath: path))
        let result = try await Self.run(["encode", "--input", path, "--output", "/dev/null"])
        #expect(result.reason == .exit && result.status == Self.usageError, "\(result.stderr)")
        #expect(result.stderr.contains("""
            the input's frame rate (override with --fps): frame rate 1000.0 is outside the supported range 1.0...60.0
            """), "\(result.stderr)")
        let overridden = try await Self.run(["encode", "--input", path, "--fps", "30", "--output", "/dev/null"])
        #expect(overridden.status == 0, "\(overridden.stderr)")
    }

    /// An output FIFO whose reader goes away ends `encode` with an error naming the file, not a SIGPIPE kill.
    @Test func aFIFOWhoseReaderLeavesIsAnErrorNotAKill() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("out.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = Thread {
            let fd = open(fifo, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: 1000)
            _ = read(fd, &buffer, buffer.count)
            close(fd)
        }
        reader.start()
        let result = try await Self.run(["encode", "--pattern", "--size", "320x240", "--frames", "300", "--output", fifo])
        #expect(result.reason == .exit, "killed by a signal: \(result.status)")
        #expect(result.status == 1)
        #expect(result.stderr.contains("Broken pipe"), "\(result.stderr)")
    }
}
