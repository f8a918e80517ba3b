import Testing
import H264
import Video
@testable import Codec

/// What the encoder writes: decodable by OpenH264, profile and level in the SPS, parameter sets ahead of every IDR,
/// NAL index consistent with the bytes.
@Suite struct EncoderBitstreamTests {
    /// The three bytes after the SPS NAL header: profile_idc, constraint flags, level_idc (H.264 7.3.2.1.1).
    struct SPSPrefix: Equatable {
        var profileIdc: UInt8
        var constraintFlags: UInt8
        var levelIdc: UInt8
        init(_ nal: ArraySlice<UInt8>) {
            let b = Array(nal)
            profileIdc = b[1]
            constraintFlags = b[2]
            levelIdc = b[3]
        }
    }

    static let constraintSet1: UInt8 = 0x40

    @Test func decodesWithOpenH264AtHighPSNR() throws {
        // 720p at 1.5 Mbit/s, the issue's reference point.
        let config = EncoderConfiguration(width: 1280, height: 720, frameRate: 30, targetBitrate: 1_500_000)
        let encoder = try H264Encoder(configuration: config)
        let decoder = try H264Decoder()
        let pattern = try TestPattern(width: 1280, height: 720)
        var source = I420Frame(width: 1280, height: 720)
        var decoded = I420Frame(width: 16, height: 16)
        var psnrs: [Double] = []
        for index in 0..<60 {
            pattern.render(frameIndex: index, into: &source)
            let result = try encoder.encode(.i420(source), timestamp: EncoderTestSupport.ticks(frame: index, fps: 30))
            guard let frame = result.encodedFrame else { continue }
            #expect(try decoder.decode(frame.bytes, into: &decoded))
            #expect(decoded.width == 1280 && decoded.height == 720)
            psnrs.append(try PSNR(reference: source, distorted: decoded).y)
        }
        #expect(psnrs.count >= 55)
        let average = psnrs.reduce(0, +) / Double(psnrs.count)
        #expect(average > 30, "average Y PSNR \(average) dB")
        #expect(psnrs.min()! > 28, "worst Y PSNR \(psnrs.min()!) dB")
    }

    /// At the highest ceiling the configuration accepts, the SPS still carries the configured level (High with a
    /// 17.4 Mbit/s ceiling, accepted before, made OpenH264 write level 3.2 under an SDP saying 3.1).
    @Test(arguments: [EncoderProfile.constrainedBaseline, .high])
    func theLevelWrittenIsTheLevelConfiguredAtTheHighestRate(profile: EncoderProfile) throws {
        var config = EncoderConfiguration(width: 1280, height: 720, targetBitrate: 1_000_000)
        config.profile = profile
        config.maxBitrate = config.level.maxBitrate(for: profile)
        let outputs = try EncoderTestSupport.run(config, frames: 1, beforeFrame: { _, encoder in
            try encoder.setBitrate(target: config.level.maxBitrate(for: profile))
        })
        let first = try #require(outputs[0].frame)
        let spsIndex = try #require(first.nalUnits.firstIndex { $0.type == .sps })
        #expect(SPSPrefix(first.nalUnit(spsIndex)).levelIdc == 31)
        var initial = config
        initial.targetBitrate = config.level.maxBitrate(for: profile)
        let direct = try #require(try EncoderTestSupport.run(initial, frames: 1)[0].frame)
        #expect(SPSPrefix(direct.nalUnit(try #require(direct.nalUnits.firstIndex { $0.type == .sps }))).levelIdc == 31)
    }

    @Test(arguments: [EncoderProfile.constrainedBaseline, .high])
    func spsCarriesProfileAndLevel(profile: EncoderProfile) throws {
        var config = EncoderConfiguration(width: 320, height: 240, targetBitrate: 300_000)
        config.profile = profile
        let outputs = try EncoderTestSupport.run(config, frames: 3)
        let first = try #require(outputs[0].frame)
        let spsIndex = try #require(first.nalUnits.firstIndex { $0.type == .sps })
        let sps = SPSPrefix(first.nalUnit(spsIndex))
        #expect(sps.profileIdc == profile.profileIdc)
        #expect(sps.levelIdc == 31)
        #expect(sps.constraintFlags == profile.constraintFlags)
        // profile-level-id (RFC 6184 8.1) matches the SPS bytes.
        #expect(config.profileLevelID.description == (profile == .high ? "640c1f" : "42c01f"))
        #expect(config.profileLevelID == ProfileLevelID(
            profileIdc: sps.profileIdc, profileIOP: sps.constraintFlags, levelIdc: sps.levelIdc))
        #expect(config.profileLevelID.profile == (profile == .high ? .constrainedHigh : .constrainedBaseline))
        if profile == .constrainedBaseline {
            #expect(sps.constraintFlags & EncoderBitstreamTests.constraintSet1 != 0, "constraint_set1_flag must be set")
        }
        // And the decoder accepts it (OpenH264 holds the first High picture back until flushed).
        let decoder = try H264Decoder()
        var picture = I420Frame(width: 16, height: 16)
        let produced = try decoder.decode(first.bytes, into: &picture)
        let flushed = produced ? false : try decoder.flush(into: &picture)
        #expect(produced || (profile == .high && flushed))
        #expect(picture.width == 320 && picture.height == 240)
    }

    @Test func parameterSetsPrecedeEveryIDRWithConstantIds() throws {
        var config = EncoderConfiguration(width: 320, height: 240, targetBitrate: 300_000)
        config.keyframeInterval = 10
        let encoder = try H264Encoder(configuration: config)
        let pattern = try TestPattern(width: 320, height: 240)
        var outputs: [EncodeResult] = []
        for index in 0..<45 {
            outputs.append(try encoder.encode(.i420(pattern.frame(index)), timestamp: Int64(index) * 3000,
                                              forceKeyframe: [13, 14, 27].contains(index)))
        }
        // OpenH264 itself writes SPS and PPS with each IDR: the encoder never had to prepend its cached copies.
        #expect(encoder.parameterSetsPrepended == 0)
        let keyframes = outputs.compactMap(\.encodedFrame).filter(\.isKeyframe)
        #expect(keyframes.count >= 6)
        var firstSPS: [UInt8]?
        var firstPPS: [UInt8]?
        for frame in keyframes {
            let types = frame.nalUnits.map(\.type)
            #expect(Array(types.prefix(2)) == [.sps, .pps], "IDR at \(frame.timestamp) starts with \(types)")
            #expect(types.dropFirst(2).allSatisfy { $0 == .idrSlice })
            let sps = Array(frame.nalUnit(0)), pps = Array(frame.nalUnit(1))
            if firstSPS == nil { firstSPS = sps; firstPPS = pps }
            #expect(sps == firstSPS, "SPS changed between IDRs (CONSTANT_ID)")
            #expect(pps == firstPPS, "PPS changed between IDRs (CONSTANT_ID)")
        }
        // Non-IDR frames carry only non-IDR slices.
        for frame in outputs.compactMap(\.encodedFrame) where !frame.isKeyframe {
            #expect(frame.nalUnits.allSatisfy { $0.type == .nonIDRSlice })
        }
    }

    @Test func nalIndexMatchesTheBytes() throws {
        let config = EncoderConfiguration(width: 320, height: 240, targetBitrate: 300_000)
        for output in try EncoderTestSupport.run(config, frames: 20) {
            guard let frame = output.frame else { continue }
            #expect(frame.nalUnits == AnnexB.nalUnitLocations(in: frame.bytes))
            #expect(Array(frame.bytes.prefix(4)) == AnnexB.startCode)
            #expect(frame.timestamp == output.timestamp)
        }
    }

    @Test func sizeLimitedSlicesFitTheMaximumNALSize() throws {
        // Packetization-mode 0: each NAL must fit one RTP payload.
        var config = EncoderConfiguration(width: 640, height: 360, targetBitrate: 1_500_000)
        config.maxNALUnitSize = 1100
        let encoder = try H264Encoder(configuration: config)
        let decoder = try H264Decoder()
        let pattern = try TestPattern(width: 640, height: 360)
        var largest = 0
        var slicesInFirstIDR = 0
        var source = I420Frame(width: 640, height: 360)
        var decoded = I420Frame(width: 16, height: 16)
        for index in 0..<30 {
            pattern.render(frameIndex: index, into: &source)
            guard let frame = try encoder.encode(.i420(source), timestamp: EncoderTestSupport.ticks(frame: index, fps: 30))
                .encodedFrame else { continue }
            largest = max(largest, frame.nalUnits.map(\.length).max() ?? 0)
            if index == 0 { slicesInFirstIDR = frame.nalUnits.filter { $0.type == .idrSlice }.count }
            #expect(try decoder.decode(frame.bytes, into: &decoded))
        }
        #expect(largest <= 1100, "largest NAL \(largest) bytes")
        #expect(slicesInFirstIDR > 1)
    }

    /// `threads` above 1: one slice per thread (OpenH264 encodes slices in parallel, nothing else), every frame of
    /// them decodable; a single thread keeps one slice per frame.
    @Test(arguments: [1, 2, 3])
    func eachThreadGetsASlice(threads: Int) throws {
        var config = EncoderConfiguration(width: 640, height: 360, targetBitrate: 1_000_000)
        config.threads = threads
        let encoder = try H264Encoder(configuration: config)
        let decoder = try H264Decoder()
        let pattern = try TestPattern(width: 640, height: 360)
        var source = I420Frame(width: 640, height: 360)
        var decoded = I420Frame(width: 16, height: 16)
        var slicesPerFrame: Set<Int> = []
        for index in 0..<10 {
            pattern.render(frameIndex: index, into: &source)
            guard let frame = try encoder.encode(.i420(source), timestamp: EncoderTestSupport.ticks(frame: index, fps: 30))
                .encodedFrame else { continue }
            slicesPerFrame.insert(frame.nalUnits.filter { $0.type == .idrSlice || $0.type == .nonIDRSlice }.count)
            #expect(try decoder.decode(frame.bytes, into: &decoded))
        }
        #expect(slicesPerFrame == [threads])
    }

    @Test func convertsAndScalesOtherFormatsAndSizes() throws {
        // A 640x480 NV12 camera frame into a 320x180 encoder: centre-cropped to 16:9 and scaled.
        let config = EncoderConfiguration(width: 320, height: 180, targetBitrate: 300_000)
        let encoder = try H264Encoder(configuration: config)
        let nv12 = try NV12Frame(width: 640, height: 480, strideY: 640, strideUV: 640,
                                 data: [UInt8](repeating: 100, count: 640 * 480 * 3 / 2))
        let bgra = try BGRAFrame(width: 200, height: 100, stride: 800, data: [UInt8](repeating: 200, count: 80_000))
        let decoder = try H264Decoder()
        let first = try #require(try encoder.encode(.nv12(nv12), timestamp: 0).encodedFrame)
        let picture = try #require(try decoder.decode(first.bytes))
        #expect(picture.width == 320 && picture.height == 180)
        let second = try encoder.encode(.bgra(bgra), timestamp: 3000)
        if let frame = second.encodedFrame { #expect(try decoder.decode(frame.bytes) != nil) }
    }

    @Test func multipleThreadsEncodeDecodably() throws {
        var config = EncoderConfiguration(width: 640, height: 360, targetBitrate: 800_000)
        config.threads = 2
        let decoder = try H264Decoder()
        let outputs = try EncoderTestSupport.run(config, frames: 10)
        for frame in outputs.compactMap(\.frame) { #expect(try decoder.decode(frame.bytes) != nil) }
    }

    @Test func decoderReportsErrorsWithTheRawState() throws {
        let decoder = try H264Decoder()
        // A non-IDR slice with no SPS/PPS before it.
        let orphanSlice: [UInt8] = [0, 0, 0, 1, 0x41, 0x9A, 0x00, 0x10, 0x20, 0x30, 0x40, 0x50]
        var frame = I420Frame(width: 16, height: 16)
        do {
            _ = try decoder.decode(orphanSlice, into: &frame)
            Issue.record("decoding an orphan slice must fail")
        } catch let error as OpenH264Error {
            #expect(error.operation == "DecodeFrameNoDelay")
            #expect(error.status != 0)
            print("orphan slice:", error)
        }
    }
}
