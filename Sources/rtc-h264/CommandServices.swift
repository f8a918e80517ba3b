import Dispatch
import Foundation
import Logging
import MediaTime
import ServiceLifecycle
import Synchronization
import Video

/// How `send` and `serve` run: their parts as swift-service-lifecycle services in one `ServiceGroup`. SIGINT or SIGTERM
/// shuts them down gracefully, in the reverse of their order (the frame source stops first, then the control
/// endpoint, then the sender or server, which sends its RTCP BYE, DTLS close_notify, WHIP DELETE); a second signal,
/// or the shutdown taking longer than `gracePeriod`, ends the process at once.
enum CommandServices {
    /// How long a graceful shutdown may take before the process ends anyway (the WHIP DELETE has a 10 s timeout).
    static let gracePeriod: Duration = .seconds(12)

    /// Starts watching SIGINT and SIGTERM: called first thing in `run()`, so that a signal during the set-up (a WHIP
    /// publish connecting, a TURN allocation) shuts the group down gracefully once it runs instead of killing the
    /// process half set up (an SFU session left behind without its DELETE).
    static func watchSignals() -> ShutdownSignals {
        ShutdownSignals(gracePeriod: gracePeriod + .seconds(3))
    }

    /// Runs `services` until they end (a service that ends the group) or a signal that `signals` saw (before or
    /// while they run) shuts them down.
    /// - Throws: the first error a service ended the group with.
    static func run(
        _ services: [ServiceGroupConfiguration.ServiceConfiguration], signals: ShutdownSignals
    ) async throws {
        var configuration = ServiceGroupConfiguration(
            services: services, logger: Logger(label: "rtc-h264.lifecycle"))
        configuration.maximumGracefulShutdownDuration = gracePeriod
        let group = ServiceGroup(configuration: configuration)
        signals.attach(group)
        try await group.run()
    }
}

/// The one owner of SIGINT and SIGTERM in `send` and `serve`. The first signal shuts the service group down
/// gracefully (at once when it runs, or as soon as it is attached when the signal came during the set-up); a second
/// one ends the process at once (status 130), and so does a graceful shutdown that outlasts its grace period
/// (status 1: a frame source blocked in a read that never returns, say). Each says why on stderr. It watches until
/// the process ends: a second signal during the clean-up after the group (the WHIP DELETE) still ends it at once.
final class ShutdownSignals: @unchecked Sendable {  // `sources` is set once in init; the rest is in `state`
    private struct State {
        var seen = 0
        var group: ServiceGroup?
    }

    private let state = Mutex(State())
    private let gracePeriod: Duration
    private let sources: [DispatchSourceSignal]

    init(gracePeriod: Duration) {
        self.gracePeriod = gracePeriod
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: number, queue: .global())
        }
        for source in sources {
            source.setEventHandler { [weak self] in self?.received() }
            source.resume()
        }
    }

    private func received() {
        let (seen, group) = state.withLock { state -> (Int, ServiceGroup?) in
            state.seen += 1
            return (state.seen, state.group)
        }
        guard seen == 1 else { return Self.exitNow("a second signal: exiting at once", status: 130) }
        let gracePeriod = self.gracePeriod
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(gracePeriod.saturatingNanoseconds))) {
            Self.exitNow("the graceful shutdown took longer than \(gracePeriod); exiting", status: 1)
        }
        if let group { Task { await group.triggerGracefulShutdown() } }
    }

    /// The group the first signal shuts down; when a signal came already, it shuts it down now.
    fileprivate func attach(_ group: ServiceGroup) {
        let pending = state.withLock { state -> Bool in
            state.group = group
            return state.seen > 0
        }
        if pending { Task { await group.triggerGracefulShutdown() } }
    }

    static func exitNow(_ message: String, status: Int32) {
        FileHandle.standardError.write(Data("rtc-h264: \(message)\n".utf8))
        exit(status)
    }
}

/// A `FramePump` as a service: it pushes frames until its source ends, or stops when the group shuts down.
struct FramePumpService: Service {
    let pump: FramePump
    /// Called with the frame count when the source ended on its own (not on a shutdown).
    let sourceDone: @Sendable (Int) -> Void

    func run() async throws {
        let pump = self.pump
        let stopped = Atomic<Bool>(false)
        let pushed = try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                try await pump.run()
            } onCancel: {
                stopped.store(true, ordering: .relaxed)
                pump.stop()
            }
        } onGracefulShutdown: {
            stopped.store(true, ordering: .relaxed)
            pump.stop()
        }
        if !stopped.load(ordering: .relaxed) { sourceDone(pushed) }
    }
}

/// Runs `tick` every `interval` until the group shuts down, then `final` once.
struct PeriodicService: Service {
    let interval: Duration
    let tick: @Sendable () async -> Void
    let final: @Sendable () async -> Void

    func run() async throws {
        let (interval, tick) = (self.interval, self.tick)
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { break }
                await tick()
            }
        }
        await final()
    }
}
