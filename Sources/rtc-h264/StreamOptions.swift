import ArgumentParser
import Codec
import Foundation
import RTP
import SRTP
import Sender

/// The options that shape the stream and its SDP, shared by `send` and `sdp` so both describe the same stream.
struct StreamOptions: ParsableArguments {
    @Option(name: .customLong("to"), help: "The receiver's RTP address, HOST:PORT (an IP literal; [::1]:PORT for IPv6). Required, except with `send --whip`.")
    var peer: HostPort?

    /// The address --to gave; `send --whip` has none (ICE finds the peer), every other use requires it.
    var requiredPeer: HostPort {
        get throws {
            guard let peer else { throw ValidationError("--to HOST:PORT is required (the receiver's RTP address)") }
            return peer
        }
    }

    @OptionGroup var encoding: EncoderOptions

    @OptionGroup var policy: SenderPolicyOptions

    @Option(name: .customLong("packetization-mode"), help: "RFC 6184 packetization mode: 0 (single NAL) or 1 (STAP-A, FU-A).")
    var packetizationMode: Int = 1

    @Option(name: .customLong("pt"), help: "RTP payload type (96-127).")
    var payloadType: UInt8 = 96

    @Option(help: "RTP SSRC (default: random).")
    var ssrc: UInt32?

    @Option(help: "SRTP suite: \(SRTPSuite.allCases.map(\.sdpName).joined(separator: ", ")).")
    var suite: String = SRTPSuite.default.sdpName

    @Option(help: "SRTP master key and salt, base64 (30 bytes for AES-128 suites, 46 for AES_256_CM, 44 for AEAD_AES_256_GCM).")
    var key: String?

    @Option(name: .customLong("key-file"), help: "A file holding the base64 key (or an inline: key parameter).")
    var keyFile: String?

    @Option(name: .customLong("remote-key"), help: "The SRTP key the peer protects its RTCP with, base64 (RFC 4568: each side sends with its own key; default: --key).")
    var remoteKey: String?

    @Option(name: .customLong("remote-key-file"), help: "A file holding the peer's base64 key (or an inline: key parameter).")
    var remoteKeyFile: String?

    @Flag(name: .customLong("accept-plain-rtcp"), help: "With SRTP, also accept unauthenticated RTCP feedback from the peer's address (Janus sends its PLI/REMB in the clear). Counted in the stats; off by default.")
    var acceptPlainRTCP = false

    @Flag(name: .customLong("no-srtp"), help: "Send plain RTP (RTP/AVP).")
    var noSRTP = false

    @Flag(name: .customLong("no-rtcp-mux"), help: "RTCP on port+1 on both sides instead of multiplexed (RFC 5761).")
    var noRTCPMux = false

    @Flag(help: "Retransmit on an RTX stream (RFC 4588; the SDP gets rtx and ssrc-group:FID) instead of the media SSRC.")
    var rtx = false

    @Option(name: .customLong("rtx-pt"), help: "RTX payload type (96-127, with --rtx).")
    var rtxPayloadType: UInt8 = 97

    @Option(name: .customLong("rtx-ssrc"), help: "RTX SSRC (with --rtx; default: random). Give the same to `sdp` and `send`.")
    var rtxSSRC: UInt32?

    @Flag(help: "Protect with FlexFEC (flexfec-03, as Chromium receives it; the SDP gets flexfec-03 and ssrc-group:FEC-FR) on top of NACK: as much as the receiver's reported loss and the round trip ask (none on a loss-free path), inside the target.")
    var fec = false

    @Option(name: .customLong("fec-pt"), help: "FlexFEC payload type (35-63 or 96-127, with --fec).")
    var fecPayloadType: UInt8 = SenderConfiguration.FEC.defaultPayloadType.rawValue

    @Option(name: .customLong("fec-ssrc"), help: "FlexFEC SSRC (with --fec; default: random). Give the same to `sdp` and `send`.")
    var fecSSRC: UInt32?

    @Option(name: .customLong("pacing-factor"), help: "Pace packets at this factor over the target bitrate (1-10).")
    var pacingFactor: Double = 2.5

    @Option(name: .customLong("transport-cc"), help: ArgumentHelp(
        "The RTP header extension ID (1-14) of the transport-wide sequence number, which every packet carries (on by default, as in every WebRTC stack: default ID 3, or the first one --abs-capture-time leaves free); the peer's transport-cc feedback drives the delay-based congestion control and start-up probing; the SDP gets a=extmap and rtcp-fb transport-cc. A peer that sends no feedback within 2 s gets the full bitrate without it.",
        valueName: "id"))
    var transportCC: UInt8?

    @Flag(name: .customLong("no-transport-cc"), help: "Leave the transport-wide sequence number out (loss-based congestion control on receiver reports only).")
    var noTransportCC = false

    /// The transport-wide sequence number's extension ID in use: --transport-cc, else 3 (Chrome's) unless
    /// --abs-capture-time has it, else the first free one; nil with --no-transport-cc.
    var transportCCID: UInt8? {
        if noTransportCC { return nil }
        return transportCC ?? Self.freeExtensionID(preferring: 3, taken: [absCaptureTime])
    }

    @Option(name: .customLong("abs-capture-time"), help: ArgumentHelp(
        "Carry each frame's capture time (abs-capture-time RTP header extension, this ID 1-14) on its first packet once a second, on keyframes and when the capture clock jumps; the SDP gets a=extmap and `receive` reports capture -> decoded times.",
        valueName: "id"))
    var absCaptureTime: UInt8?

    @Option(help: "RTCP CNAME.")
    var cname: String = "rtc-h264"

    func validate() throws {
        if noSRTP && (key != nil || keyFile != nil) { throw ValidationError("--no-srtp cannot be used with --key or --key-file") }
        if key != nil && keyFile != nil { throw ValidationError("give --key or --key-file, not both") }
        if remoteKey != nil && remoteKeyFile != nil { throw ValidationError("give --remote-key or --remote-key-file, not both") }
        if noSRTP && (remoteKey != nil || remoteKeyFile != nil) {
            throw ValidationError("--no-srtp cannot be used with --remote-key or --remote-key-file")
        }
        if transportCC != nil && noTransportCC { throw ValidationError("give --transport-cc ID or --no-transport-cc, not both") }
        if let transportCC, !(1...14).contains(transportCC) {
            throw ValidationError("--transport-cc must be a header extension ID of 1-14 (RFC 8285 one-byte form)")
        }
        if let absCaptureTime {
            guard (1...14).contains(absCaptureTime) else {
                throw ValidationError("--abs-capture-time must be a header extension ID of 1-14 (RFC 8285 one-byte form)")
            }
            guard absCaptureTime != transportCCID else {
                throw ValidationError("--abs-capture-time and --transport-cc cannot share header extension ID \(absCaptureTime)")
            }
        }
        guard pacingFactor.isFinite, (1...10).contains(pacingFactor) else {
            throw ValidationError("--pacing-factor must be between 1 and 10")
        }
        if rtx {
            guard (96...127).contains(rtxPayloadType), rtxPayloadType != payloadType else {
                throw ValidationError("--rtx-pt must be 96-127 and differ from --pt")
            }
            if policy.noNACK { throw ValidationError("--rtx needs NACK (remove --no-nack)") }
        } else if rtxSSRC != nil {
            throw ValidationError("--rtx-ssrc needs --rtx")
        }
        if fec {
            guard PayloadType.isValidForFlexFEC(fecPayloadType), fecPayloadType != payloadType,
                  !rtx || fecPayloadType != rtxPayloadType
            else { throw ValidationError("--fec-pt must be 35-63 or 96-127 and differ from --pt and --rtx-pt") }
        } else if fecSSRC != nil {
            throw ValidationError("--fec-ssrc needs --fec")
        }
        if noSRTP && acceptPlainRTCP { throw ValidationError("--accept-plain-rtcp only makes sense with SRTP (RTCP is plain already)") }
        guard !cname.isEmpty, cname.utf8.count <= SenderConfiguration.maximumCNAMELength else {
            throw ValidationError("--cname must be 1-\(SenderConfiguration.maximumCNAMELength) bytes")
        }
        guard SRTPSuite(sdpName: suite) != nil else {
            throw ValidationError("unknown --suite \(suite); use one of \(SRTPSuite.allCases.map(\.sdpName).joined(separator: ", "))")
        }
        guard (0...1).contains(packetizationMode) else { throw ValidationError("--packetization-mode must be 0 or 1") }
        guard (96...127).contains(payloadType) else { throw ValidationError("--pt must be 96-127 (a dynamic payload type)") }
        if let peer, !(1...65535).contains(peer.port) { throw ValidationError("--to needs a port between 1 and 65535") }
        try policy.validate()  // the MTU is in range before the payload limit below is computed from it
        let mtu = policy.mtu
        if packetizationMode == 0 {
            // Every NAL unit must fit one packet, and the encoder cannot cut slices below its minimum.
            let limit = SenderConfiguration.payloadLimit(
                mtu: mtu, peerHost: peer?.host ?? "0.0.0.0", suite: noSRTP ? nil : SRTPSuite(sdpName: suite))
            let minimum = EncoderConfiguration.minimumMaxNALUnitSize
            guard limit.maxPayloadSize >= minimum else {
                throw ValidationError(
                    "--mtu \(mtu) leaves \(limit.maxPayloadSize) bytes of RTP payload; packetization mode 0 needs at least "
                        + "\(minimum) per NAL unit: use --mtu \(mtu + minimum - limit.maxPayloadSize) or more, or --packetization-mode 1")
            }
        }
    }

    /// The header extension ID `send` and `sdp` give an extension they choose themselves (the transport-wide
    /// sequence number: 3, the playout delay: 5, Chrome's): `preferring` unless another extension has it, else the
    /// first free one of 1-14 (both commands compute the same from the same flags).
    /// - Parameters:
    ///   - preferring: the ID wanted.
    ///   - taken: the IDs of the other extensions.
    static func freeExtensionID(preferring: UInt8, taken: [UInt8?]) -> UInt8? {
        ([preferring] + Array(1...14)).first { !taken.contains($0) }
    }

    /// The SRTP settings: the given key (or a random one) and the peer's key if it differs.
    func security() throws -> SenderConfiguration.Security? {
        if noSRTP { return nil }
        let suite = SRTPSuite(sdpName: self.suite)!
        let local = try Self.readKey(key, file: keyFile, option: "--key", suite: suite) ?? SRTPMasterKey.random(for: suite)
        let remote = try Self.readKey(remoteKey, file: remoteKeyFile, option: "--remote-key", suite: suite)
        return .init(suite: suite, key: local, remoteKey: remote)
    }

    /// Reads a key given inline or in a file, as base64 or an SDES `inline:` parameter.
    static func readKey(_ text: String?, file: String?, option: String, suite: SRTPSuite) throws -> SRTPMasterKey? {
        var text = text
        if let file {
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw ValidationError("cannot read \(option)-file \(file): \(error.localizedDescription)")
            }
        }
        guard let text else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            if trimmed.hasPrefix("inline:") {
                return try SDESInlineKey(parsing: trimmed, for: suite).masterKey
            }
            guard let bytes = Data(base64Encoded: trimmed) else {
                throw ValidationError("the SRTP key of \(option) is not valid base64")
            }
            return try SRTPMasterKey(keyAndSalt: [UInt8](bytes), for: suite)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("SRTP key of \(option): \(error)")
        }
    }

    /// The sender configuration for a source of the given native size and rate.
    /// - Parameters:
    ///   - publishing: true for `send --whip`: no --to (the placeholder peer of `SenderConfiguration(publishing:)`).
    func configuration(sourceWidth: Int?, sourceHeight: Int?, sourceFrameRate: Double?, publishing: Bool = false) throws
        -> SenderConfiguration
    {
        let encoder: EncoderConfiguration
        do {
            encoder = try encoding.configuration(
                sourceWidth: sourceWidth, sourceHeight: sourceHeight, sourceFrameRate: sourceFrameRate)
        } catch {
            throw ValidationError("\(error)")
        }
        let peer = publishing ? HostPort(host: "0.0.0.0", port: 9) : try requiredPeer
        var configuration = SenderConfiguration(peerHost: peer.host, peerPort: peer.port, encoder: encoder)
        configuration.rtcpMux = !noRTCPMux
        policy.apply(to: &configuration, pacingFactor: pacingFactor)
        configuration.packetizationMode = packetizationMode == 0 ? .singleNALUnit : .nonInterleaved
        configuration.payloadType = PayloadType(payloadType)
        configuration.ssrc = ssrc.map { SSRC($0) }
        configuration.security = try security()
        configuration.acceptPlainRTCP = acceptPlainRTCP
        configuration.rtx = rtx ? .init(payloadType: PayloadType(rtxPayloadType), ssrc: rtxSSRC.map { SSRC($0) }) : nil
        configuration.fec = fec ? .init(payloadType: PayloadType(fecPayloadType), ssrc: fecSSRC.map { SSRC($0) }) : nil
        configuration.transportWideCCExtensionID = transportCCID
        configuration.absoluteCaptureTimeExtensionID = absCaptureTime
        if configuration.playoutDelay != nil {
            configuration.playoutDelayExtensionID = Self.freeExtensionID(preferring: 5, taken: [transportCCID, absCaptureTime])
        }
        // With temporal layers, the dependency descriptor says each packet's layer (as libwebrtc sends it).
        if encoder.temporalLayers > 1 {
            configuration.dependencyDescriptorExtensionID = Self.freeExtensionID(
                preferring: 6, taken: [transportCCID, absCaptureTime, configuration.playoutDelayExtensionID])
        }
        configuration.cname = cname
        do {
            try configuration.validate()
        } catch {
            throw ValidationError("\(error)")
        }
        return configuration
    }
}
