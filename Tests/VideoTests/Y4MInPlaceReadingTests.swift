import Foundation
import Testing
@testable import Video

/// `Y4MReader.withNextFrame(_:)`: frames of a regular file are lent in place from the mapping (no copy), frames from
/// a pipe from the reader's own buffer; a file that grows or shrinks while it is read; bad frames give the same
/// errors whichever way they are read.
@Suite struct Y4MInPlaceReadingTests {
    static let frameBytes = Y4MTests.frameBytes
    static let frameHeader = Array("FRAME\n".utf8)

    static func fileBytes(_ values: [UInt8]) -> [UInt8] {
        Array(Y4MTests.header.utf8) + values.flatMap { Y4MTests.frame($0) }
    }

    @Test func lendsFramesOfAFileInPlace() throws {
        let path = try Y4MTests.temporaryFile(Self.fileBytes([1, 2, 3]))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try Y4MReader(path: path)
        var lumaStarts: [UnsafePointer<UInt8>] = []
        var values: [[UInt8]] = []
        while let value = try reader.withNextFrame({ (view: I420FrameView) -> [UInt8] in
            lumaStarts.append(view.y)
            #expect(view.width == 16 && view.height == 16 && view.strideY == 16 && view.strideUV == 8)
            #expect(view.u == view.y + 256 && view.v == view.u + 64)
            return [view.y[0], view.u[0], view.v[63]]
        }) {
            values.append(value)
        }
        #expect(values == [[1, 1, 1], [2, 2, 2], [3, 3, 3]])
        #expect(reader.framesRead == 3)
        // In place: consecutive frames are one frame header plus one picture apart, as in the file.
        #expect(lumaStarts.count == 3)
        #expect(lumaStarts[1] - lumaStarts[0] == Self.frameHeader.count + Self.frameBytes)
        #expect(lumaStarts[2] - lumaStarts[1] == Self.frameHeader.count + Self.frameBytes)
    }

    @Test func lendsFramesOfAPipeFromOneReusedBuffer() throws {
        let pipe = Pipe()
        pipe.fileHandleForWriting.write(Data(Self.fileBytes([7, 8])))
        try pipe.fileHandleForWriting.close()
        let reader = try Y4MReader(fileDescriptor: pipe.fileHandleForReading.fileDescriptor, closeOnDeinit: false)
        var lumaStarts: [UnsafePointer<UInt8>] = []
        var values: [UInt8] = []
        while let value = try reader.withNextFrame({ (view: I420FrameView) -> UInt8 in
            lumaStarts.append(view.y)
            return view.v[view.strideUV * view.chromaHeight - 1]
        }) {
            values.append(value)
        }
        #expect(values == [7, 8])
        #expect(lumaStarts.count == 2 && lumaStarts[0] == lumaStarts[1])
    }

    @Test func mixesCopyingAndLendingReads() throws {
        let path = try Y4MTests.temporaryFile(Self.fileBytes([4, 5, 6]))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try Y4MReader(path: path)
        var frame = I420Frame(width: 4, height: 4)  // wrong size: replaced
        #expect(try reader.readFrame(into: &frame))
        #expect(frame.width == 16 && frame.data == [UInt8](repeating: 4, count: Self.frameBytes))
        #expect(try reader.withNextFrame { $0.makeFrame() } == I420Frame(width: 16, height: 16, strideY: 16, strideUV: 8,
                                                                        data: [UInt8](repeating: 5, count: Self.frameBytes)))
        #expect(try reader.readFrame(into: &frame))
        #expect(frame.data.first == 6)
        #expect(try reader.withNextFrame { _ in true } == nil)
    }

    @Test func readsFramesAppendedAfterOpening() throws {
        let path = try Y4MTests.temporaryFile(Self.fileBytes([1]))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try Y4MReader(path: path)
        #expect(try reader.withNextFrame { $0.y[0] } == 1)
        #expect(try reader.withNextFrame { $0.y[0] } == nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        handle.write(Data(Y4MTests.frame(2) + Y4MTests.frame(3)))
        try handle.close()
        #expect(try reader.withNextFrame { $0.y[0] } == 2)
        var frame = I420Frame(width: 16, height: 16)
        #expect(try reader.readFrame(into: &frame))
        #expect(frame.data.last == 3)
        #expect(try reader.withNextFrame { $0.y[0] } == nil)
    }

    @Test func aFileCutShortWhileReadIsATruncatedFrameNotACrash() throws {
        let path = try Y4MTests.temporaryFile(Self.fileBytes([1, 2, 3]))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try Y4MReader(path: path)
        #expect(try reader.withNextFrame { $0.y[0] } == 1)
        // Keep the second frame's header and 4 bytes of its picture: the mapping still spans the old size, but
        // nothing past the new end may be read.
        let keep = Y4MTests.header.utf8.count + Self.frameHeader.count + Self.frameBytes + Self.frameHeader.count + 4
        #expect(truncate(path, off_t(keep)) == 0)
        #expect(throws: Y4MError.truncatedFrame(frameIndex: 1, expectedBytes: Self.frameBytes, receivedBytes: 4)) {
            _ = try reader.withNextFrame { $0.y[0] }
        }
        #expect(try reader.withNextFrame { $0.y[0] } == nil)
        #expect(reader.framesRead == 1)
    }

    @Test func readsAFileRedirectedToADescriptorFromWhereItsHeaderEnds() throws {
        let path = try Y4MTests.temporaryFile(Self.fileBytes([9, 10]))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        let reader = try Y4MReader(fileDescriptor: fd, closeOnDeinit: false)
        #expect(try reader.withNextFrame { $0.y[0] } == 9)
        #expect(try reader.withNextFrame { $0.y[Self.frameBytes - 1] } == 10)
        #expect(try reader.withNextFrame { $0.y[0] } == nil)
    }

    @Test(arguments: Y4MTests.badFrames)
    func lendingReadsGiveTheSameErrorsFromAFile(name: String, body: [UInt8], expected: Y4MError) throws {
        let path = try Y4MTests.temporaryFile(Array(Y4MTests.header.utf8) + body)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try Y4MReader(path: path)
        #expect(throws: expected, "\(name)") {
            while try reader.withNextFrame({ _ in true }) != nil {}
        }
    }

    @Test(arguments: Y4MTests.badFrames)
    func readsGiveTheSameErrorsFromAPipe(name: String, body: [UInt8], expected: Y4MError) throws {
        for lending in [false, true] {
            let pipe = Pipe()
            pipe.fileHandleForWriting.write(Data(Array(Y4MTests.header.utf8) + body))
            try pipe.fileHandleForWriting.close()
            let reader = try Y4MReader(fileDescriptor: pipe.fileHandleForReading.fileDescriptor, closeOnDeinit: false)
            var frame = I420Frame(width: 16, height: 16)
            #expect(throws: expected, "\(name), lending \(lending)") {
                if lending {
                    while try reader.withNextFrame({ _ in true }) != nil {}
                } else {
                    while try reader.readFrame(into: &frame) {}
                }
            }
        }
    }
}
