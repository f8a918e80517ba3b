import Codec
import H264
import SDP
import SRTP
import Video

extension SenderConfiguration {
    /// Learns the SPS and PPS the stream will carry by encoding one frame with a throwaway encoder of the same
    /// configuration (OpenH264's parameter sets depend only on the configuration), so that an SDP can be written
    /// before the first packet leaves.
    /// - Returns: the SPS and PPS NAL units.
    /// - Throws: encoder errors.
    public func probeParameterSets() throws -> [[UInt8]] {
        var probe = encoder
        probe.maxNALUnitSize = packetizationMode == 0 ? (probe.maxNALUnitSize ?? 1100) : probe.maxNALUnitSize
        let encoder = try H264Encoder(configuration: probe)
        let frame = I420Frame(width: probe.width, height: probe.height)
        guard case .frame(let encoded, _) = try encoder.encode(.i420(frame), timestamp: 0, forceKeyframe: true) else {
            throw SenderError.invalidConfiguration("the encoder produced no keyframe to take SPS/PPS from")
        }
        return encoded.parameterSets.map { Array($0) }
    }

    /// The SDP a receiver needs to play this stream.
    /// - Parameters:
    ///   - parameterSets: SPS and PPS (see `probeParameterSets()`).
    ///   - ssrc: the SSRC, or nil to leave `a=ssrc` out.
    /// - Returns: the description; its `crypto` holds the key when SRTP is on (write it only to a private file).
    public func sessionDescription(parameterSets: [[UInt8]], ssrc: UInt32?) -> SessionDescription {
        let profileLevelID = parameterSets.first { $0.first.map { NALUnitHeader(byte: $0).type == .sps } ?? false }
            .flatMap { sps in sps.count >= 4 ? ProfileLevelID(profileIdc: sps[1], profileIOP: sps[2], levelIdc: sps[3]) : nil }
        let crypto = security.map {
            SessionDescription.Crypto(suite: $0.suite.sdpName, keyParameters: SDESInlineKey(masterKey: $0.key).keyParams)
        }
        return SessionDescription(
            connectionAddress: peerHost, port: peerPort, rtcpMux: rtcpMux, payloadType: payloadType,
            profileLevelID: profileLevelID?.description ?? "42e01f", packetizationMode: packetizationMode,
            parameterSets: parameterSets, crypto: crypto, ssrc: ssrc, cname: cname, frameRate: encoder.frameRate)
    }
}
