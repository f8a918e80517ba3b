internal import COpenH264
import Video

/// An H.264 decoder over OpenH264 (`DecodeFrameNoDelay`), for tests and the receiver: one access unit in, one I420
/// picture out.
///
/// The class owns one `ISVCDecoder` (created and initialised in `init`, uninitialised and destroyed in `deinit`).
/// Not thread-safe.
public final class H264Decoder {
    private let decoder: UnsafeMutablePointer<ISVCDecoder?>
    private var bufferInfo = SBufferInfo()
    /// Access units decoded so far.
    public private(set) var accessUnitsDecoded = 0

    /// Creates a decoder for plain AVC streams.
    /// - Throws: `OpenH264Error` if OpenH264 cannot create or initialise it.
    public init() throws {
        var created: UnsafeMutablePointer<ISVCDecoder?>?
        try OpenH264Error.check(WelsCreateDecoder(&created), "WelsCreateDecoder")
        guard let handle = created else { throw OpenH264Error(operation: "WelsCreateDecoder", status: -1) }
        let api = handle.pointee!.pointee
        do {
            var traceLevel = Int32(WELS_LOG_ERROR)
            try OpenH264Error.check(api.SetOption(handle, DECODER_OPTION_TRACE_LEVEL, &traceLevel), "SetOption")
            var parameters = SDecodingParam()
            parameters.sVideoProperty.eVideoBsType = VIDEO_BITSTREAM_AVC
            parameters.eEcActiveIdc = ERROR_CON_DISABLE  // report damage instead of concealing it
            try OpenH264Error.check(api.Initialize(handle, &parameters), "Initialize")
        } catch {
            WelsDestroyDecoder(handle)
            throw error
        }
        decoder = handle
    }

    deinit {
        _ = decoder.pointee!.pointee.Uninitialize(decoder)
        WelsDestroyDecoder(decoder)
    }

    /// Decodes one access unit (Annex-B) into `frame`, reusing its storage when the size matches.
    /// - Parameters:
    ///   - accessUnit: the access unit's Annex-B bytes.
    ///   - frame: the destination.
    /// - Returns: true if a picture was produced (false for parameter sets alone).
    /// - Throws: `OpenH264Error` with the raw `DECODING_STATE` if the decoder reports an error.
    public func decode(_ accessUnit: [UInt8], into frame: inout I420Frame) throws -> Bool {
        var planes: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?) =
            (nil, nil, nil)
        bufferInfo = SBufferInfo()
        let state = accessUnit.withUnsafeBufferPointer { bytes in
            withUnsafeMutablePointer(to: &planes) { planesPointer in
                planesPointer.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 3) { dst in
                    decoder.pointee!.pointee.DecodeFrameNoDelay(decoder, bytes.baseAddress, Int32(bytes.count), dst,
                                                                &bufferInfo)
                }
            }
        }
        try OpenH264Error.check(state.rawValue, "DecodeFrameNoDelay")
        accessUnitsDecoded += 1
        return copyPicture(planes, into: &frame)
    }

    /// Returns a picture the decoder still holds. OpenH264 holds back one picture of a non-Baseline stream (High)
    /// until it is sure of the display order; call this at the end of a stream to get it.
    /// - Parameter frame: the destination.
    /// - Returns: true if a picture was produced.
    /// - Throws: `OpenH264Error` with the raw `DECODING_STATE`.
    public func flush(into frame: inout I420Frame) throws -> Bool {
        var planes: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?) =
            (nil, nil, nil)
        bufferInfo = SBufferInfo()
        let state = withUnsafeMutablePointer(to: &planes) { planesPointer in
            planesPointer.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 3) { dst in
                decoder.pointee!.pointee.FlushFrame(decoder, dst, &bufferInfo)
            }
        }
        try OpenH264Error.check(state.rawValue, "DecodeFlushFrame")
        return copyPicture(planes, into: &frame)
    }

    private func copyPicture(
        _ planes: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?),
        into frame: inout I420Frame
    ) -> Bool {
        guard bufferInfo.iBufferStatus == 1, let y = planes.0, let u = planes.1, let v = planes.2 else { return false }
        let system = bufferInfo.UsrData.sSystemBuffer
        guard let picture = try? I420FrameView(
            width: Int(system.iWidth), height: Int(system.iHeight), strideY: Int(system.iStride.0),
            strideUV: Int(system.iStride.1), y: y, u: u, v: v)
        else { return false }
        picture.copy(into: &frame)
        return true
    }

    /// Decodes one access unit into a new frame.
    /// - Parameter accessUnit: the access unit's Annex-B bytes.
    /// - Returns: the picture, or nil if none was produced.
    /// - Throws: `OpenH264Error` with the raw `DECODING_STATE`.
    public func decode(_ accessUnit: [UInt8]) throws -> I420Frame? {
        var frame = I420Frame(width: 16, height: 16)
        return try decode(accessUnit, into: &frame) ? frame : nil
    }
}
