import Foundation
import Testing
import Video

/// Issue 20, item 9: frames of two sizes written through one Y4M stream all come out at the stream's size.
@Suite struct ScalingY4MWriterTests {
    /// 64x48 frames, then 32x24 ones (a sender's switch), then 64x48 again: the file holds every frame at 64x48 (the
    /// first size) or at a requested size, and the writer counts the switches and the scaled frames.
    @Test(arguments: [(64, 48), (48, 48)])
    func everyFrameIsWrittenAtTheStreamsSize(width: Int, height: Int) throws {
        let path = NSTemporaryDirectory() + "scaling-\(UUID().uuidString).y4m"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let large = try TestPattern(width: 64, height: 48)
        let small = try TestPattern(width: 32, height: 24)
        let sizes = [64, 64, 64, 32, 32, 32, 32, 64]
        var scaledReported: [Bool] = []
        do {
            let writer = try ScalingY4MWriter(writer: try Y4MWriter(path: path, header: Y4MHeader(width: width, height: height)))
            for (index, size) in sizes.enumerated() {
                scaledReported.append(try writer.write(size == 64 ? large.frame(index) : small.frame(index)))
            }
            #expect(writer.framesWritten == sizes.count)
            #expect(writer.inputSizeChanges == 2)
            #expect(writer.framesScaled == scaledReported.filter { $0 }.count)
            try writer.close()
        }
        #expect(scaledReported == sizes.map { $0 != width || ($0 == 64 ? 48 : 24) != height })
        let reader = try Y4MReader(path: path)
        #expect(reader.header.width == width && reader.header.height == height)
        var frames: [I420Frame] = []
        while let frame = try reader.readFrame() { frames.append(frame) }
        #expect(frames.count == sizes.count)
        #expect(frames.allSatisfy { $0.width == width && $0.height == height })
        if width == 64 {
            // Frames of the stream's size are written as they are; the others are scaled up to it.
            #expect(frames[0] == large.frame(0))
            #expect(frames[7] == large.frame(7))
            var expected = I420Frame(width: 64, height: 48)
            let converter = try FrameConverter(width: 64, height: 48)
            try small.frame(3).withView { (view) throws(VideoError) in try converter.convert(view, into: &expected) }
            #expect(frames[3] == expected)
        }
    }
}
