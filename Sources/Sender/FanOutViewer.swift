import NIOCore

/// One viewer of a `FanOutEncoder`: its `SenderSessionDriver`, on its transport's loop.
package final class FanOutViewer: Sendable {
    /// The viewer's number within its encoder.
    package let id: UInt64
    private let core: NIOLoopBound<SenderSessionDriver>
    private let eventLoop: EventLoop
    private let fanOut: FanOutEncoder

    init(id: UInt64, core: NIOLoopBound<SenderSessionDriver>, eventLoop: EventLoop, fanOut: FanOutEncoder) {
        self.id = id
        self.core = core
        self.eventLoop = eventLoop
        self.fanOut = fanOut
    }

    /// The viewer's statistics now.
    package func statistics() async -> SenderStats {
        let core = self.core
        return (try? await eventLoop.submit { core.value.snapshot() }.get()) ?? SenderStats()
    }

    /// Detaches the viewer and ends its stream (RTCP BYE, its transport closed). Idempotent.
    /// - Returns: the viewer's final statistics.
    @discardableResult
    package func finish() async -> SenderStats {
        fanOut.detach(id)
        let core = self.core
        return (try? await eventLoop.submit { core.value.finish(error: nil) }.get()) ?? SenderStats()
    }

    var coreOnLoop: SenderSessionDriver { core.value }

    /// Detaches and finishes on the viewer's loop (call there): the BYE leaves; the transport stays open for its
    /// owner to send what must follow (DTLS close_notify) and close it.
    package func finishOnLoop() {
        fanOut.detach(id)
        core.value.finish(error: nil, closingTransport: false)
    }
}

extension FanOutViewer {
    /// The viewer's statistics now (call on the viewer's loop).
    package func snapshotOnLoop() -> SenderStats { coreOnLoop.snapshot() }
}
