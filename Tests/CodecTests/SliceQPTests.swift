import Testing
import H264
import Video
@testable import Codec

/// The QP reported with each frame, read from the first slice header (OpenH264 2.3.1 reports none): present on
/// every frame in both profiles and with size-limited slices, inside the configured QP window, and lower at a
/// higher bitrate.
@Suite struct SliceQPTests {
    static func qps(_ configure: (inout EncoderConfiguration) -> Void, frames: Int = 60) throws -> [Int?] {
        var c = EncoderConfiguration(width: 320, height: 240, frameRate: 30, targetBitrate: 300_000)
        configure(&c)
        return try EncoderTestSupport.run(c, frames: frames, forceAt: [20, 40])
            .compactMap { $0.result.statistics }.map(\.averageQP)
    }

    @Test(arguments: [EncoderProfile.constrainedBaseline, .high])
    func everyFrameHasAQPInsideTheWindow(profile: EncoderProfile) throws {
        for window in [12...45, 20...30, 33...33] {
            let values = try Self.qps { $0.profile = profile; $0.qpRange = window }
            #expect(values.count >= 30, "\(profile) \(window): \(values.count) frames")  // 33...33 makes rate control skip
            #expect(values.allSatisfy { $0 != nil }, "\(profile) \(window): \(values)")
            #expect(values.compactMap { $0 }.allSatisfy { window.contains($0) }, "\(profile) \(window): \(values)")
        }
    }

    @Test func sizeLimitedSlicesToo() throws {
        let values = try Self.qps { $0.maxNALUnitSize = 500; $0.targetBitrate = 1_000_000 }
        #expect(values.allSatisfy { $0 != nil })
    }

    @Test func aHigherBitrateGivesALowerQP() throws {
        func mean(_ bitrate: Int) throws -> Double {
            let values = try Self.qps({ $0.targetBitrate = bitrate }, frames: 90).compactMap { $0 }
            return Double(values.reduce(0, +)) / Double(values.count)
        }
        let low = try mean(150_000), high = try mean(2_000_000)
        #expect(low > high + 5, "mean QP \(low) at 150k, \(high) at 2M")
    }

    @Test func unreadableHeadersGiveNil() {
        var reader = SliceQPReader()
        // No parameter sets yet.
        let slice: [UInt8] = [0, 0, 0, 1, 0x65, 0x88, 0x80, 0x40]
        let nal = [NALUnitLocation(offset: 4, length: 4, header: NALUnitHeader(byte: 0x65))]
        #expect(reader.qp(bytes: slice, nalUnits: nal) == nil)
        // Garbage parameter sets are ignored, not fatal.
        reader.updateParameterSets(bytes: [0, 0, 0, 1, 0x67, 0xFF, 0xFF],
                                   nalUnits: [NALUnitLocation(offset: 4, length: 3, header: NALUnitHeader(byte: 0x67))])
        #expect(reader.qp(bytes: slice, nalUnits: nal) == nil)
    }
}
