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

    /// Runs `services` until they end (a service that ends the group) or a signal shuts them down.
    /// - Throws: the first error a service ended the group with.
    static func run(_ services: [ServiceGroupConfiguration.ServiceConfiguration]) async throws {
        var configuration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint],
            logger: Logger(label: "rtc-h264.lifecycle"))
        configuration.maximumGracefulShutdownDuration = gracePeriod
        let guardian = SecondSignal(gracePeriod: gracePeriod + .seconds(3))
        defer { guardian.cancel() }
        try await ServiceGroup(configuration: configuration).run()
    }
}

/// Watches SIGINT and SIGTERM beside the service group: a second one ends the process at once (status 130), and so
/// does a graceful shutdown that outlasts its grace period (status 1, a frame source blocked in a read that never
/// returns, say). Each says why on stderr.
final class SecondSignal: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let count = Atomic<Int>(0)

    init(gracePeriod: Duration) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                let seen = count.add(1, ordering: .relaxed).newValue
                if seen == 1 {
                    DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(gracePeriod.saturatingNanoseconds))) {
                        Self.exitNow("the graceful shutdown took longer than \(gracePeriod); exiting", status: 1)
                    }
                } else {
                    Self.exitNow("a second signal: exiting at once", status: 130)
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    static func exitNow(_ message: String, status: Int32) {
        FileHandle.standardError.write(Data("rtc-h264: \(message)\n".utf8))
        exit(status)
    }

    func cancel() {
        for source in sources { source.cancel() }
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
