import Testing
import Foundation
@testable import Video

/// YUV4MPEG2 reading (files and pipes), writing, and every malformed input with its error.
@Suite struct Y4MTests {
    static let header = "YUV4MPEG2 W16 H16 F30:1 Ip A1:1 C420jpeg\n"
    static let frameBytes = 16 * 16 * 3 / 2

    static func frame(_ value: UInt8) -> [UInt8] { Array("FRAME\n".utf8) + [UInt8](repeating: value, count: frameBytes) }

    static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "y4m-\(UUID().uuidString).y4m"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }

    @Test func readsFramesIntoAReusedBuffer() throws {
        let path = try Y4MTests.temporaryFile(Array(Y4MTests.header.utf8) + Y4MTests.frame(1) + Y4MTests.frame(2))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try Y4MReader(path: path)
        #expect(reader.header == Y4MHeader(width: 16, height: 16, frameRateNumerator: 30, frameRateDenominator: 1,
                                           colorSpace: "420jpeg"))
        var frame = I420Frame(width: 16, height: 16)
        #expect(try reader.readFrame(into: &frame))
        #expect(frame.data == [UInt8](repeating: 1, count: Y4MTests.frameBytes))
        #expect(try reader.readFrame(into: &frame))
        #expect(frame.data == [UInt8](repeating: 2, count: Y4MTests.frameBytes))
        #expect(try !reader.readFrame(into: &frame))
        #expect(reader.framesRead == 2)
    }

    @Test func readsFromAPipe() throws {
        let pipe = Pipe()
        let bytes = Array("YUV4MPEG2 W16 H16 F25:1\n".utf8) + Y4MTests.frame(9) + Array("FRAME Ixyz\n".utf8)
            + [UInt8](repeating: 8, count: Y4MTests.frameBytes)
        pipe.fileHandleForWriting.write(Data(bytes))
        try pipe.fileHandleForWriting.close()
        let reader = try Y4MReader(fileDescriptor: pipe.fileHandleForReading.fileDescriptor, closeOnDeinit: false)
        #expect(reader.header.frameRate == 25)
        #expect(reader.header.colorSpace == nil)
        #expect(try reader.readFrame()?.data.first == 9)
        #expect(try reader.readFrame()?.data.last == 8)
        #expect(try reader.readFrame() == nil)
    }

    @Test func writerRoundTrips() throws {
        let path = NSTemporaryDirectory() + "y4m-\(UUID().uuidString).y4m"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pattern = try TestPattern(width: 64, height: 48)
        // A padded frame is written without its padding.
        var padded = I420Frame(width: 64, height: 48, strideY: 80, strideUV: 40)
        let source = pattern.frame(3)
        padded.withUnsafeMutablePlanes { y, u, v in
            source.withUnsafePlanes { sy, su, sv in
                for r in 0..<48 { (y + r * 80).update(from: sy + r * 64, count: 64) }
                for r in 0..<24 {
                    (u + r * 40).update(from: su + r * 32, count: 32)
                    (v + r * 40).update(from: sv + r * 32, count: 32)
                }
            }
        }
        do {
            let writer = try Y4MWriter(path: path, header: Y4MHeader(width: 64, height: 48))
            try writer.write(pattern.frame(0))
            try writer.write(padded)
            #expect(throws: Y4MError.frameSizeMismatch(frameIndex: 2, expectedWidth: 64, expectedHeight: 48,
                                                       width: 32, height: 48)) {
                try writer.write(I420Frame(width: 32, height: 48))
            }
        }
        let data = try #require(FileManager.default.contents(atPath: path))
        #expect(data.prefix(46) == Data("YUV4MPEG2 W64 H48 F30:1 Ip A1:1 C420jpeg\nFRAME".utf8))
        let reader = try Y4MReader(path: path)
        #expect(try reader.readFrame() == pattern.frame(0))
        #expect(try reader.readFrame() == source)
        #expect(try reader.readFrame() == nil)
    }

    @Test(arguments: ["420jpeg", "420paldv", "420mpeg2", "420"])
    func accepts420ColourSpaces(colorSpace: String) throws {
        let header = try Y4MHeader(parsing: "YUV4MPEG2 W16 H16 F30000:1001 C\(colorSpace)")
        #expect(header.colorSpace == colorSpace)
        #expect(abs(header.frameRate - 29.97) < 0.001)
    }

    static let badHeaders: [(String, Y4MError)] = [
        ("", .badHeader("empty stream or header line without newline")),
        ("YUV4MPEG3 W16 H16\n", .badHeader("does not start with YUV4MPEG2")),
        ("YUV4MPEG2 H16 F30:1\n", .badHeader("missing W (width)")),
        ("YUV4MPEG2 W16 F30:1\n", .badHeader("missing H (height)")),
        ("YUV4MPEG2 W0 H16\n", .badHeader("bad width W0")),
        ("YUV4MPEG2 W16 Hx\n", .badHeader("bad height Hx")),
        ("YUV4MPEG2 W16 H16 F30\n", .badHeader("bad frame rate F30")),
        ("YUV4MPEG2 W16 H16 F30:0\n", .badHeader("bad frame rate F30:0")),
        ("YUV4MPEG2 W16 H16", .badHeader("line without newline at end of stream")),
        ("YUV4MPEG2 W16 H16 " + String(repeating: "X", count: 1100) + "\n",
         .badHeader("line longer than 1024 bytes")),
        // Regression (issue 11; fuzz target y4m on the old code in 66 s, Tests/Fuzz/Regressions/y4m/
        // frame-size-overflow): W and H were only checked > 0, so frameByteCount overflowed, a trap.
        ("YUV4MPEG2 W4 H8880000062777080797\n", .badHeader("height 8880000062777080797 is over the 16384 accepted")),
        ("YUV4MPEG2 W99999999999 H99999999999\n", .badHeader("width 99999999999 is over the 16384 accepted")),
        ("YUV4MPEG2 W16 H16385\n", .badHeader("height 16385 is over the 16384 accepted")),
        ("YUV4MPEG2 W16 H16 F99999999999999:1\n", .badHeader("bad frame rate F99999999999999:1")),
        ("YUV4MPEG2 W16 H16 F-30:1\n", .badHeader("bad frame rate F-30:1")),
        ("YUV4MPEG2 W16 H16 F30:\n", .badHeader("bad frame rate F30:")),
        ("YUV4MPEG2 W16 H16 F1001:1\n", .badHeader("frame rate F1001:1 is over 1000 frames per second")),
        ("YUV4MPEG2 W16 H16 C422\n", .unsupportedColorSpace("422")),
        ("YUV4MPEG2 W16 H16 C444\n", .unsupportedColorSpace("444")),
        ("YUV4MPEG2 W16 H16 C420p10\n", .unsupportedColorSpace("420p10")),
        ("YUV4MPEG2 W16 H16 Cmono\n", .unsupportedColorSpace("mono")),
    ]

    @Test(arguments: badHeaders)
    func refusesBadHeaders(text: String, expected: Y4MError) throws {
        let path = try Y4MTests.temporaryFile(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: expected) { _ = try Y4MReader(path: path) }
    }

    static let badFrames: [(String, [UInt8], Y4MError)] = [
        ("wrong frame magic", Array("FRAMX\n".utf8) + [UInt8](repeating: 0, count: frameBytes),
         .badFrameHeader(frameIndex: 0)),
        ("frame magic run-on", Array("FRAMES\n".utf8) + [UInt8](repeating: 0, count: frameBytes),
         .badFrameHeader(frameIndex: 0)),
        ("picture cut short", Array("FRAME\n".utf8) + [UInt8](repeating: 0, count: 100),
         .truncatedFrame(frameIndex: 0, expectedBytes: frameBytes, receivedBytes: 100)),
        ("second picture cut short", frame(1) + Array("FRAME\n".utf8) + [UInt8](repeating: 0, count: 10),
         .truncatedFrame(frameIndex: 1, expectedBytes: frameBytes, receivedBytes: 10)),
        ("second frame header cut", frame(1) + Array("FRA".utf8),
         .truncatedFrame(frameIndex: 1, expectedBytes: frameBytes, receivedBytes: 0)),
        ("header without picture", frame(1) + frame(2) + Array("FRAME\n".utf8),
         .truncatedFrame(frameIndex: 2, expectedBytes: frameBytes, receivedBytes: 0)),
        ("garbage between frames", frame(1) + Array("junk\n".utf8),
         .badFrameHeader(frameIndex: 1)),
    ]

    @Test(arguments: badFrames)
    func refusesBadFrames(name: String, body: [UInt8], expected: Y4MError) throws {
        let path = try Y4MTests.temporaryFile(Array(Y4MTests.header.utf8) + body)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try Y4MReader(path: path)
        var frame = I420Frame(width: 16, height: 16)
        #expect(throws: expected, "\(name)") {
            while try reader.readFrame(into: &frame) {}
        }
    }

    @Test func largestAcceptedHeaderHasAnExactFrameSize() throws {
        let header = try Y4MHeader(parsing: "YUV4MPEG2 W16384 H16384 F1000:1 C420")
        #expect(header.frameByteCount == 16384 * 16384 * 3 / 2)
        #expect(header.frameRate == 1000)
        let slow = try Y4MHeader(parsing: "YUV4MPEG2 W1 H1 F1:2147483647")
        #expect(slow.frameRate > 0 && slow.frameByteCount == 3)
    }

    @Test func missingFileIsASystemError() {
        #expect(throws: Y4MError.system(operation: "open /nonexistent/x.y4m", errno: ENOENT)) {
            _ = try Y4MReader(path: "/nonexistent/x.y4m")
        }
    }
}
