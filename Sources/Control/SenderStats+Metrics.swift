import Sender

extension SenderStats {
    /// The statistics as Prometheus samples, named after their `outbound-rtp` fields
    /// (`rtc_h264_outbound_<field in snake case>[_total]`); values not known yet (no RTT before the first report) are
    /// left out.
    /// With simulcast each encoding also has its own series, `rtc_h264_outbound_layer_<field>` labelled with its
    /// `rid` (at most three: the label stays bounded).
    /// - Parameter labels: Labels for every sample (a WHEP viewer's id), or none.
    /// - Returns: Counters and gauges.
    public func metricSamples(labels: [MetricSample.Label] = []) -> [MetricSample] {
        func counter(_ name: String, _ help: String, _ value: Int) -> MetricSample {
            MetricSample(name: "rtc_h264_outbound_\(name)_total", help: help, kind: .counter, labels: labels,
                         value: Double(value))
        }
        func gauge(_ name: String, _ help: String, _ value: Double?) -> MetricSample? {
            value.map { MetricSample(name: "rtc_h264_outbound_\(name)", help: help, kind: .gauge,
                                     labels: labels, value: $0) }
        }
        let counters = [
            counter("frames_encoded", "Frames the encoder produced.", framesEncoded),
            counter("key_frames_encoded", "IDR frames the encoder produced.", keyFramesEncoded),
            counter("frames_dropped", "Frames dropped before the encoder (a newer frame replaced them).", framesDropped),
            counter("frames_skipped", "Frames the encoder's rate control skipped.", framesSkipped),
            counter("frames_sent", "Frames packetized and sent.", framesSent),
            counter("packets_sent", "RTP packets sent, retransmissions excluded.", packetsSent),
            counter("bytes_sent", "RTP payload bytes sent, retransmissions excluded.", bytesSent),
            counter("header_bytes_sent", "RTP header and padding bytes sent.", headerBytesSent),
            counter("retransmitted_packets_sent", "Packets resent for NACKs.", retransmittedPacketsSent),
            counter("retransmitted_bytes_sent", "Bytes resent for NACKs.", retransmittedBytesSent),
            counter("fec_packets_sent", "FlexFEC packets sent.", fecPacketsSent),
            counter("fec_bytes_sent", "Bytes of the FlexFEC packets sent.", fecBytesSent),
            counter("nack_count", "NACK feedback messages received.", nackCount),
            counter("pli_count", "Picture Loss Indications received.", pliCount),
            counter("fir_count", "Full Intra Requests received.", firCount),
            counter("quality_limitation_resolution_changes", "Resolution changes made by the adaptation.", resolutionChanges),
            counter("pacer_packets_dropped", "Packets the pacer dropped for its queue limit.", pacerPacketsDropped),
            counter("transport_feedback_received", "Transport-wide congestion control feedback messages received.",
                    transportFeedbackReceived),
            counter("loss_fast_cuts", "Heavy losses (the path overrun) that cut the loss-based estimate at once.",
                    lossFastCuts),
            counter("rtcp_packets_received", "RTCP packets received.", rtcpPacketsReceived),
            counter("rtcp_malformed", "RTCP datagrams that did not parse.", rtcpMalformed),
            counter("srtcp_unprotect_failures", "SRTCP datagrams that failed authentication.", srtcpUnprotectFailures),
            counter("send_errors", "Packets the socket refused.", sendErrors),
        ]
        let gauges = [
            gauge("target_bitrate_bps", "The encoder's target bitrate in bit/s.", Double(targetBitrate)),
            gauge("max_bitrate_bps", "The encoder's bitrate ceiling in bit/s.", Double(maxBitrate)),
            gauge("actual_bitrate_bps", "The bitrate the encoder produced over the last second, in bit/s.",
                  Double(actualBitrate)),
            gauge("frames_per_second", "Frames encoded per second.", framesPerSecond),
            gauge("frame_width_pixels", "The encoded width.", Double(frameWidth)),
            gauge("frame_height_pixels", "The encoded height.", Double(frameHeight)),
            gauge("round_trip_time_seconds", "The round-trip time from the receiver's reports.", roundTripTime),
            gauge("fraction_lost_ratio", "The fraction of packets lost in the receiver's last report.", fractionLost),
            gauge("congestion_estimate_bps", "The send-side bandwidth estimate in bit/s.", congestionEstimate.map(Double.init)),
        ].compactMap { $0 }
        return counters + gauges + layerSamples(labels: labels)
    }

    /// Each simulcast encoding's series (`simulcastLayers`), labelled with its RTP stream id.
    private func layerSamples(labels: [MetricSample.Label]) -> [MetricSample] {
        var samples: [MetricSample] = []
        // One family at a time (the exposition groups a family's samples under its HELP and TYPE).
        let families: [(name: String, help: String, kind: MetricSample.Kind, value: (SimulcastLayerStats) -> Double)] = [
            ("frames_sent_total", "Frames this simulcast encoding sent.", .counter, { Double($0.framesSent) }),
            ("key_frames_sent_total", "IDR frames this simulcast encoding sent.", .counter, { Double($0.keyFramesSent) }),
            ("packets_sent_total", "RTP packets this simulcast encoding sent, retransmissions excluded.", .counter,
             { Double($0.packetsSent) }),
            ("bytes_sent_total", "RTP payload bytes this simulcast encoding sent, retransmissions excluded.", .counter,
             { Double($0.bytesSent) }),
            ("actual_bitrate_bps", "The bitrate this simulcast encoding sent over the last report interval, in bit/s.",
             .gauge, { Double($0.actualBitrate) }),
            ("frame_width_pixels", "This simulcast encoding's width.", .gauge, { Double($0.frameWidth) }),
            ("frame_height_pixels", "This simulcast encoding's height.", .gauge, { Double($0.frameHeight) }),
            ("active", "1 when the bitrate split carries this simulcast encoding now, 0 when it is paused.", .gauge,
             { $0.active ? 1 : 0 }),
        ]
        for family in families {
            for layer in simulcastLayers ?? [] {
                samples.append(MetricSample(
                    name: "rtc_h264_outbound_layer_\(family.name)", help: family.help, kind: family.kind,
                    labels: labels + [MetricSample.Label("rid", layer.rid)], value: family.value(layer)))
            }
        }
        return samples
    }
}
