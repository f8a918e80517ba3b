import Foundation
import Testing
@testable import Video

/// Y4M read from descriptors the caller opened: a pipe gives the same errors as a file for every malformed frame,
/// and a file descriptor already past the header is read from where it stands.
@Suite struct Y4MDescriptorTests {
    @Test(arguments: Y4MTests.badFrames)
    func aPipeGivesTheSameErrorsAsAFile(name: String, body: [UInt8], expected: Y4MError) throws {
        let pipe = Pipe()
        pipe.fileHandleForWriting.write(Data(Array(Y4MTests.header.utf8) + body))
        try pipe.fileHandleForWriting.close()
        let reader = try Y4MReader(fileDescriptor: pipe.fileHandleForReading.fileDescriptor, closeOnDeinit: false)
        var frame = I420Frame(width: 16, height: 16)
        #expect(throws: expected, "\(name)") {
            while try reader.readFrame(into: &frame) {}
        }
    }

    @Test func readsAnOpenFileDescriptorWithoutClosingIt() throws {
        let path = try Y4MTests.temporaryFile(Array(Y4MTests.header.utf8) + Y4MTests.frame(9) + Y4MTests.frame(10))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        do {
            let reader = try Y4MReader(fileDescriptor: fd, closeOnDeinit: false)
            var frame = I420Frame(width: 4, height: 4)  // wrong size: replaced
            #expect(try reader.readFrame(into: &frame))
            #expect(frame.width == 16 && frame.data == [UInt8](repeating: 9, count: Y4MTests.frameBytes))
            #expect(try reader.readFrame(into: &frame))
            #expect(frame.data.last == 10)
            #expect(try !reader.readFrame(into: &frame))
        }
        #expect(fcntl(fd, F_GETFD) >= 0, "the reader must leave a descriptor it does not own open")
    }
}
