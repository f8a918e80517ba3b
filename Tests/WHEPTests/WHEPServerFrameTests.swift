import DTLS
import Foundation
import Sender
import Video
import Testing
@testable import WHEP

/// Frames in other pixel formats reach the shared encoder.
@Suite struct WHEPServerFrameTests {
    @Test(.timeLimit(.minutes(1)))
    func nv12FramesAreConvertedAndEncodedOnce() async throws {
        let server = try await WHEPServer(
            configuration: WHEPTestSupport.configuration(), options: .init(host: "127.0.0.1", port: 0))
        let nv12 = try NV12Frame(width: 320, height: 240, strideY: 320, strideUV: 320,
                                 data: [UInt8](repeating: 128, count: 320 * 240 * 3 / 2))
        let start = ContinuousClock.now
        for index in 0..<5 {
            await server.waitForEncoder()
            try server.send(.nv12(nv12), captureTime: start + .milliseconds(33 * index))
        }
        #expect(await WHEPTestSupport.waitFor(seconds: 5) { server.framesEncoded == 5 })
        await server.finish()
        #expect(throws: SenderError.finished) { try server.send(.nv12(nv12)) }
    }
}
