#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore

extension H264Sender {
    /// Applies an operator command. On the event loop.
    func apply(_ command: ControlCommand) -> ControlReply {
        eventLoop.assertInEventLoop()
        switch command {
        case .setBitrate(let bps):
            var controller = state.bitrate
            do {
                try controller.setOperatorBitrate(bps)
            } catch {
                return .error(400, "\(error)")
            }
            do {
                try applyBitrate(controller)
            } catch {
                return .error(400, "\(error)")
            }
            return .ok(["\"targetBitrate\":\(state.bitrate.effectiveTarget)", "\"maxBitrate\":\(state.bitrate.effectiveCeiling)"])
        case .setFrameRate(let fps):
            do {
                try state.encoder.setFrameRate(fps)
            } catch {
                return .error(400, "\(error)")
            }
            state.frameRate = fps
            state.frameInterval = Int64((1e9 / fps).rounded())
            return .ok(["\"framesPerSecond\":\(fps)"])
        case .requestKeyframe:
            state.stats.keyframeRequests += 1
            requestKeyframe()
            return .ok()
        case .stats:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            guard let data = try? encoder.encode(snapshot()) else { return .error(500, "stats could not be encoded") }
            return ControlReply(status: 200, body: String(decoding: data, as: UTF8.self))
        }
    }

    /// Moves the encoder to the controller's effective target and ceiling; on failure nothing changes.
    func applyBitrate(_ controller: BitrateController) throws {
        let target = controller.effectiveTarget
        let ceiling = controller.effectiveCeiling
        if target != state.encoder.configuration.targetBitrate || ceiling != state.encoder.configuration.effectiveMaxBitrate {
            try state.encoder.setBitrate(target: target, maxBitrate: ceiling)
        }
        state.bitrate = controller
        state.stats.targetBitrate = target
        state.stats.maxBitrate = ceiling
        state.stats.operatorBitrate = controller.operatorBitrate
    }

    /// The statistics now. On the event loop.
    func snapshot() -> SenderStats {
        var stats = state.stats
        stats.timestamp = Double(Self.uptime() - state.startUptime) / 1e9
        stats.rembBitrate = state.bitrate.rembLimit
        stats.tmmbrBitrate = state.bitrate.tmmbrLimit
        return stats
    }

    /// Once per report interval: rates over the last interval, the Sender Report, the progress callback.
    func report() {
        guard state.running else { return }
        let now = Self.uptime()
        let elapsed = Double(now - state.lastReportUptime) / 1e9
        if elapsed > 0 {
            state.stats.framesPerSecond = Double(state.stats.framesEncoded - state.framesAtLastReport) / elapsed
            state.stats.actualBitrate = Int(Double((state.stats.bytesSent - state.bytesAtLastReport) * 8) / elapsed)
        }
        state.lastReportUptime = now
        state.framesAtLastReport = state.stats.framesEncoded
        state.bytesAtLastReport = state.stats.bytesSent
        sendSenderReport()
        onReport?(snapshot())
    }
}
