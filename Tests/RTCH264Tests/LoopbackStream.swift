import RTCH264

/// A receiver on loopback and a 160x96 sender streaming to it under one SRTP key, made through `import RTCH264` alone
/// (the tests of this target share it).
struct LoopbackStream {
    let receiver: H264Receiver
    let sender: H264Sender
    /// The sender's configuration (its peer, key and encoder).
    let configuration: SenderConfiguration
    /// The receiver's run: it ends on the sender's BYE with the receiver's statistics.
    let received: Task<ReceiverStats, any Error>

    static func start() async throws -> LoopbackStream {
        let key = SRTPMasterKey.random(for: .default)
        var receiving = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
        receiving.security = .init(remoteKey: key)
        let receiver = try await H264Receiver(configuration: receiving)
        let received = Task { try await receiver.run() }
        var configuration = SenderConfiguration(
            peerHost: "127.0.0.1", peerPort: receiver.localPort,
            encoder: EncoderConfiguration(width: 160, height: 96, frameRate: 30, targetBitrate: 200_000))
        configuration.security = .init(key: key)
        let sender = try await H264Sender(configuration: configuration)
        return LoopbackStream(receiver: receiver, sender: sender, configuration: configuration, received: received)
    }

    /// Pushes `count` grey frames at 30 fps, calling `each` with each frame's index after it was pushed.
    func push(_ count: Int, each: (Int) async throws -> Void = { _ in }) async throws {
        let frame = I420Frame(width: 160, height: 96)
        for index in 0..<count {
            try sender.send(.i420(frame), captureTime: .now)
            try await each(index)
            try await Task.sleep(for: .milliseconds(33))
        }
    }
}
