import Foundation
import Testing
import H264
import TestSupport

/// End-to-end checks of `rtc-h264 inspect` (Docs/Inspect.md): runs the binary that `swift build --build-tests` puts
/// next to the test bundle on the fixtures and on broken input.
@Suite struct InspectCommandTests {
    /// A real `rtc-h264 inspect` process (TestSupport's `RTCH264Tool`).
    static func run(_ arguments: [String], stdin: Data? = nil) async throws -> ChildProcess.Output {
        try await RTCH264Tool.run(arguments, standardInput: stdin)
    }

    static func fixturePath(_ name: String) throws -> String {
        try #require(Bundle.module.url(forResource: name, withExtension: "h264", subdirectory: "Fixtures")).path
    }

    @Test func jsonReportOfTheCroppedFixture() async throws {
        let result = try await Self.run(["inspect", "--json", try Self.fixturePath("crop-1080p")])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        #expect(json["byteCount"] as? Int == 11413)
        #expect(json["nalUnitCount"] as? Int == 5)
        let units = try #require(json["accessUnits"] as? [[String: Any]])
        #expect(units.map { $0["offset"] as? Int } == [0, 10449])
        #expect(units.map { $0["size"] as? Int } == [10449, 964])
        #expect(units.map { $0["keyframe"] as? Bool } == [true, false])
        let firstNALs = try #require(units.first?["nalUnits"] as? [[String: Any]])
        #expect(firstNALs.map { $0["name"] as? String } == ["sps", "pps", "sei", "idr"])
        #expect(firstNALs.map { $0["size"] as? Int } == [25, 5, 556, 9849])
        let sps = try #require((json["sequenceParameterSets"] as? [[String: Any]])?.first)
        #expect(sps["profile"] as? String == "Constrained Baseline")
        #expect(sps["profileLevelId"] as? String == "42c028")
        #expect(sps["level"] as? String == "4")
        #expect(sps["width"] as? Int == 1920 && sps["height"] as? Int == 1080)
        #expect(sps["codedHeight"] as? Int == 1088)
        #expect((sps["crop"] as? [String: Int]) == ["left": 0, "right": 0, "top": 0, "bottom": 4])
        let pps = try #require((json["pictureParameterSets"] as? [[String: Any]])?.first)
        #expect(pps["entropyCoding"] as? String == "cavlc")
        // Keys are sorted: "accessUnits" is the first key of the document.
        #expect(String(decoding: result.standardOutput.prefix(20), as: UTF8.self).contains("\"accessUnits\""))
    }

    @Test func textReportFromStandardInput() async throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try Self.fixturePath("high-slices")))
        let result = try await Self.run(["inspect", "-"], stdin: bytes)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            2307 bytes, 15 NAL units, 3 access units
            SPS id=0 @4: High, level 1.1, 176x144, profile-level-id 64000b, chroma_format_idc 1, 8-bit, progressive, max_num_ref_frames 4
            PPS id=0 @32: sps 0, cabac, 8x8 transform
            AU 0 @0 2148 bytes key: sps(24) pps(5) sei(694) idr(314) idr(278) idr(410) idr(400)
            AU 1 @2148 66 bytes: slice(18) slice(9) slice(9) slice(17)
            AU 2 @2214 93 bytes: slice(19) slice(9) slice(9) slice(43)

            """)
    }

    static let broken: [(name: String, bytes: [UInt8], message: String)] = [
        ("empty input", [], "error: -: no NAL unit found (no start code)\n"),
        ("random bytes", [0x12, 0x34, 0x56, 0x78], "error: -: non-zero data before the first start code at byte offset 0\n"),
        ("SPS cut short", [0, 0, 0, 1, 0x09, 0x10, 0, 0, 0, 1, 0x67, 0x42, 0xC0, 0x0A, 0xDA, 0x08],
            "error: -: data ends inside a syntax element at byte offset 16\n"),
        ("forbidden bit", [0, 0, 1, 0x09, 0x10, 0, 0, 1, 0xC1, 0x9A],
            "error: -: NAL unit with forbidden_zero_bit set at byte offset 8\n"),
    ]

    @Test(arguments: 0..<broken.count) func brokenInputExitsWithTheOffset(_ index: Int) async throws {
        let c = Self.broken[index]
        let result = try await Self.run(["inspect", "--json", "-"], stdin: Data(c.bytes))
        #expect(result.status == 1, "\(c.name)")
        #expect(result.stderr == c.message, "\(c.name)")
        #expect(result.standardOutput.isEmpty, "\(c.name)")
    }

    @Test func missingFile() async throws {
        let result = try await Self.run(["inspect", "/nonexistent/stream.h264"])
        #expect(result.status == 1)
        #expect(result.stderr == "error: cannot read /nonexistent/stream.h264\n")
    }
}
