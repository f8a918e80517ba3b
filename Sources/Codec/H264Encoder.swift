internal import COpenH264
internal import COpenH264Shim
import H264
import Video

/// A real-time H.264 encoder over OpenH264, driven the way WebRTC drives VideoToolbox on iOS: camera real-time usage,
/// CBR with a hard ceiling, no B-frames, SPS and PPS (constant ids) ahead of every IDR, IDRs on request, every
/// `keyframeInterval` frames and every `keyframeIntervalDuration` of the frames' own timestamps, rates changeable at
/// runtime.
///
/// The class owns one `ISVCEncoder` (created and initialised in `init`, uninitialised and destroyed in `deinit`) and
/// the buffers it fills, so encoding allocates nothing per frame beyond the returned access unit. Not thread-safe:
/// use it from one task or thread at a time.
public final class H264Encoder {
    /// The configuration in force (updated by the rate setters).
    public internal(set) var configuration: EncoderConfiguration
    /// The IDR decisions and their state.
    public private(set) var keyframeScheduler: KeyframeScheduler

    let encoder: UnsafeMutablePointer<ISVCEncoder?>
    private let bitstream: UnsafeMutablePointer<SFrameBSInfo>
    private var picture = SSourcePicture()
    private var statistics = SEncoderStatistics()
    private var converter: FrameConverter
    private var converted: I420Frame
    /// Reads each picture's QP from its first slice header (OpenH264 2.3.1 does not report it).
    private var qpReader = SliceQPReader()
    /// The denoiser's chroma smoothing, done here for a lightly preprocessed layer (nil: OpenH264's whole denoiser or
    /// none, as configured).
    private var chromaSmoother: ChromaSmoother?
    /// SPS and PPS of the last IDR, in Annex-B form (empty before the first IDR): for out-of-band signalling
    /// (`sprop-parameter-sets`), and put ahead of an IDR that would lack them.
    public private(set) var parameterSets: [UInt8] = []
    /// An IDR was asked for (by `requestKeyframe()` or `forceKeyframe`) and not produced yet.
    public private(set) var keyframePending = false
    private let clock = ContinuousClock()
    /// Tests only: the number of rate `SetOption` calls that succeed before one fails with `cmInitParaError` (nil: no
    /// injected failure), to check that `setBitrate` rolls back whatever step fails.
    var rateOptionsBeforeInjectedFailure: Int?
    /// How many IDRs lacked SPS/PPS from OpenH264 and got the cached ones (0 with OpenH264 2.3: it emits them itself).
    private(set) var parameterSetsPrepended = 0

    /// Milliseconds per 90 kHz tick divisor: OpenH264 timestamps are in milliseconds (`SSourcePicture.uiTimeStamp`).
    static let ticksPerMillisecond: Int64 = 90

    /// Creates and initialises an encoder.
    /// - Parameter configuration: the settings; validated first.
    /// - Throws: `EncoderConfigurationError` for a bad configuration, `OpenH264Error` if OpenH264 refuses it.
    public init(configuration: EncoderConfiguration) throws {
        try configuration.validate()
        encoder = try H264Encoder.makeEncoder(configuration: configuration)
        self.configuration = configuration
        keyframeScheduler = KeyframeScheduler(interval: configuration.keyframeInterval,
                                              duration: configuration.keyframeIntervalDuration)
        bitstream = UnsafeMutablePointer<SFrameBSInfo>.allocate(capacity: 1)
        bitstream.initialize(to: SFrameBSInfo())
        converter = try FrameConverter(width: configuration.width, height: configuration.height)
        converted = I420Frame(width: configuration.width, height: configuration.height)
        if configuration.lightPreprocessing && configuration.denoise { chromaSmoother = ChromaSmoother() }
    }

    deinit {
        _ = encoder.pointee!.pointee.Uninitialize(encoder)
        WelsDestroySVCEncoder(encoder)
        bitstream.deinitialize(count: 1)
        bitstream.deallocate()
    }

    /// Creates an OpenH264 encoder and initialises it, destroying it again if initialisation fails.
    private static func makeEncoder(configuration: EncoderConfiguration) throws -> UnsafeMutablePointer<ISVCEncoder?> {
        var created: UnsafeMutablePointer<ISVCEncoder?>?
        try OpenH264Error.check(WelsCreateSVCEncoder(&created), "WelsCreateSVCEncoder")
        guard let handle = created else { throw OpenH264Error(operation: "WelsCreateSVCEncoder", status: -1) }
        let api = handle.pointee!.pointee
        do {
            var traceLevel = Int32(WELS_LOG_ERROR)
            try OpenH264Error.check(api.SetOption(handle, ENCODER_OPTION_TRACE_LEVEL, &traceLevel), "SetOption")
            var parameters = SEncParamExt()
            try OpenH264Error.check(api.GetDefaultParams(handle, &parameters), "GetDefaultParams")
            apply(configuration, to: &parameters)
            try OpenH264Error.check(api.InitializeExt(handle, &parameters), "InitializeExt")
            var format = Int32(videoFormatI420.rawValue)
            let status = api.SetOption(handle, ENCODER_OPTION_DATAFORMAT, &format)
            if status != 0 {
                _ = api.Uninitialize(handle)
                try OpenH264Error.check(status, "SetOption")
            }
        } catch {
            WelsDestroySVCEncoder(handle)
            throw error
        }
        return handle
    }

    /// Encodes one frame.
    ///
    /// A frame of another format or size is converted to I420 and centre-cropped and scaled to the configured size; an
    /// I420 frame of the configured size is passed to OpenH264 without a copy.
    /// - Parameters:
    ///   - frame: the picture.
    ///   - timestamp: its presentation time in 90 kHz units (monotonic); also drives the time-based IDR rule.
    ///   - forceKeyframe: produce an IDR (with SPS and PPS) for this frame (or, if rate control skips this frame, for
    ///     the next one encoded).
    /// - Returns: `.frame` with the access unit and statistics, or `.skipped` with the reason.
    /// - Throws: `OpenH264Error` if OpenH264 fails, `VideoError` if the conversion fails.
    public func encode(_ frame: VideoFrame, timestamp: Int64, forceKeyframe: Bool = false) throws -> EncodeResult {
        let start = clock.now
        if case .i420(let source) = frame {
            return try source.withView { try encode($0, timestamp: timestamp, forceKeyframe: forceKeyframe, start: start) }
        }
        try converter.convert(frame, into: &converted)
        return try encodeConverted(timestamp: timestamp, forceKeyframe: forceKeyframe, start: start)
    }

    /// Encodes one borrowed I420 picture (a camera's or a render loop's buffer), read in place by
    /// OpenH264 when it has the configured size, else cropped and scaled first as `encode(_:timestamp:forceKeyframe:)`
    /// does.
    /// - Parameters:
    ///   - view: the picture, only read during the call.
    ///   - timestamp: its presentation time in 90 kHz units (monotonic); also drives the time-based IDR rule.
    ///   - forceKeyframe: produce an IDR (with SPS and PPS) for this frame, or for the next one encoded.
    /// - Returns: `.frame` with the access unit and statistics, or `.skipped` with the reason.
    /// - Throws: `OpenH264Error` if OpenH264 fails, `VideoError` if the scaling fails.
    public func encode(_ view: I420FrameView, timestamp: Int64, forceKeyframe: Bool = false) throws -> EncodeResult {
        try encode(view, timestamp: timestamp, forceKeyframe: forceKeyframe, start: clock.now)
    }

    private func encode(_ view: I420FrameView, timestamp: Int64, forceKeyframe: Bool,
                        start: ContinuousClock.Instant) throws -> EncodeResult {
        if view.hasSize(width: configuration.width, height: configuration.height) {
            return try encodeSized(view, timestamp: timestamp, forceKeyframe: forceKeyframe, start: start)
        }
        try converter.convert(view, into: &converted)
        return try encodeConverted(timestamp: timestamp, forceKeyframe: forceKeyframe, start: start)
    }

    /// Encodes what the converter just wrote into `converted`.
    private func encodeConverted(timestamp: Int64, forceKeyframe: Bool, start: ContinuousClock.Instant) throws
        -> EncodeResult {
        try converted.withView { try encodeSized($0, timestamp: timestamp, forceKeyframe: forceKeyframe, start: start) }
    }

    /// The encode itself, on a picture of the configured size.
    private func encodeSized(_ view: I420FrameView, timestamp: Int64, forceKeyframe: Bool,
                             start: ContinuousClock.Instant) throws -> EncodeResult {
        if forceKeyframe { keyframePending = true }
        let keyframeRequested = keyframePending || keyframeScheduler.isKeyframeDue(timestamp: timestamp)
        if keyframeRequested {
            // Through the C++ shim: the C vtable's ForceIntraFrame would pass a garbage iLayerId.
            try OpenH264Error.check(COpenH264Shim_forceIntraFrame(encoder), "ForceIntraFrame")
        }
        let status = encodePicture(view, timestamp: timestamp)
        try OpenH264Error.check(status, "EncodeFrame")

        let frameType = bitstream.pointee.eFrameType
        if frameType == videoFrameTypeSkip {
            keyframeScheduler.record(timestamp: timestamp, wasKeyframe: false)
            return .skipped(.rateControl)
        }
        if frameType == videoFrameTypeInvalid {
            throw OpenH264Error(operation: "EncodeFrame", status: Int(cmUnknownReason.rawValue))
        }
        guard bitstream.pointee.iFrameSizeInBytes > 0 else {
            keyframeScheduler.record(timestamp: timestamp, wasKeyframe: false)
            return .skipped(.emptyOutput)
        }
        let isKeyframe = frameType == videoFrameTypeIDR
        if isKeyframe { keyframePending = false }
        let encoded = collectAccessUnit(isKeyframe: isKeyframe, timestamp: timestamp)
        keyframeScheduler.record(timestamp: timestamp, wasKeyframe: isKeyframe)
        if isKeyframe { qpReader.updateParameterSets(bytes: encoded.bytes, nalUnits: encoded.nalUnits) }
        // OpenH264 2.3.1 leaves uiAverageFrameQP at 0 (measured: Docs/Encoder.md); then the QP is read from the slice
        // header.
        let reported: Int? = encoder.pointee!.pointee.GetOption(encoder, ENCODER_OPTION_GET_STATISTICS, &statistics) == 0
            && statistics.uiAverageFrameQP > 0 ? Int(statistics.uiAverageFrameQP) : nil
        let qp = reported ?? qpReader.qp(bytes: encoded.bytes, nalUnits: encoded.nalUnits)
        let stats = EncodeStatistics(size: encoded.bytes.count, averageQP: qp, encodeDuration: clock.now - start,
                                     keyframeRequested: keyframeRequested)
        return .frame(encoded, stats)
    }

    /// Asks for an IDR on the next encoded frame (same as passing `forceKeyframe: true` to the next `encode`), for
    /// example on an RTCP PLI or FIR. The request stands until an IDR is actually produced, so a frame skipped by
    /// rate control does not lose it.
    public func requestKeyframe() {
        keyframePending = true
    }

    /// Hands the planes to OpenH264 (`EncodeFrame`), which only reads them (it copies the picture into its own
    /// buffers first), hence the `mutating` casts its C signature needs. With the chroma smoother, the chroma planes
    /// are its smoothed copies and the luma plane is still the caller's.
    private func encodePicture(_ view: I420FrameView, timestamp: Int64) -> Int32 {
        guard var smoother = chromaSmoother else {
            return encodePicture(view, u: view.u, v: view.v, strideUV: view.strideUV, timestamp: timestamp)
        }
        chromaSmoother = nil  // held by `smoother` meanwhile, so that its planes are not copied on write
        defer { chromaSmoother = smoother }
        return smoother.smooth(view) { u, v, stride in
            encodePicture(view, u: u, v: v, strideUV: stride, timestamp: timestamp)
        }
    }

    private func encodePicture(_ view: I420FrameView, u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>, strideUV: Int,
                               timestamp: Int64) -> Int32 {
        picture.iColorFormat = Int32(videoFormatI420.rawValue)
        picture.iPicWidth = Int32(view.width)
        picture.iPicHeight = Int32(view.height)
        picture.iStride = (Int32(view.strideY), Int32(strideUV), Int32(strideUV), 0)
        picture.pData = (UnsafeMutablePointer(mutating: view.y), UnsafeMutablePointer(mutating: u),
                         UnsafeMutablePointer(mutating: v), nil)
        picture.uiTimeStamp = timestamp / H264Encoder.ticksPerMillisecond
        defer { picture.pData = (nil, nil, nil, nil) }
        return encoder.pointee!.pointee.EncodeFrame(encoder, &picture, bitstream)
    }

    /// Copies OpenH264's layers into one Annex-B buffer and indexes its NAL units from the layer information
    /// (`pNalLengthInByte`), without scanning for start codes.
    private func collectAccessUnit(isKeyframe: Bool, timestamp: Int64) -> EncodedFrame {
        let info = bitstream.pointee
        let layerCount = Int(info.iLayerNum)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.iFrameSizeInBytes) + parameterSets.count)
        var nalUnits: [NALUnitLocation] = []
        nalUnits.reserveCapacity(8)
        var sawParameterSets = false
        var temporalLayer = 0
        let layersOffset = MemoryLayout<SFrameBSInfo>.offset(of: \SFrameBSInfo.sLayerInfo)!
        let layers = (UnsafeMutableRawPointer(bitstream) + layersOffset).assumingMemoryBound(to: SLayerBSInfo.self)
        for index in 0..<layerCount {
            let layer = layers[index]
            guard let base = layer.pBsBuf, let lengths = layer.pNalLengthInByte else { continue }
            if layer.uiLayerType == UInt8(VIDEO_CODING_LAYER.rawValue) { temporalLayer = Int(layer.uiTemporalId) }
            var offset = 0
            for nal in 0..<Int(layer.iNalCount) {
                let length = Int(lengths[nal])
                // OpenH264 writes 4-byte start codes; accept 3-byte ones too.
                let startCodeLength = length > 3 && base[offset + 2] == 1 ? 3 : 4
                let header = NALUnitHeader(byte: base[offset + startCodeLength])
                if header.type == .sps { sawParameterSets = true }
                nalUnits.append(NALUnitLocation(offset: bytes.count + offset + startCodeLength,
                                                length: length - startCodeLength, header: header))
                offset += length
            }
            bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: offset))
        }
        if isKeyframe {
            if sawParameterSets {
                cacheParameterSets(bytes: bytes, nalUnits: nalUnits)
            } else if !parameterSets.isEmpty {
                prependParameterSets(to: &bytes, nalUnits: &nalUnits)
                parameterSetsPrepended += 1
            }
        }
        return EncodedFrame(
            bytes: bytes, nalUnits: nalUnits, isKeyframe: isKeyframe, timestamp: timestamp, temporalLayer: temporalLayer)
    }

    private func cacheParameterSets(bytes: [UInt8], nalUnits: [NALUnitLocation]) {
        parameterSets.removeAll(keepingCapacity: true)
        for nal in nalUnits where nal.type == .sps || nal.type == .pps {
            parameterSets.append(contentsOf: AnnexB.startCode)
            parameterSets.append(contentsOf: bytes[nal.range])
        }
    }

    private func prependParameterSets(to bytes: inout [UInt8], nalUnits: inout [NALUnitLocation]) {
        let prefix = AnnexB.nalUnitLocations(in: parameterSets)
        let shift = parameterSets.count
        bytes.insert(contentsOf: parameterSets, at: 0)
        nalUnits = prefix + nalUnits.map {
            NALUnitLocation(offset: $0.offset + shift, length: $0.length, header: $0.header)
        }
    }
}
