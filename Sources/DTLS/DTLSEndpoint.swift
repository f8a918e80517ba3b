internal import COpenSSL
public import MediaTime
import SRTP

/// The ex-data slot of an `SSL` that points back at its `DTLSEndpoint`, for OpenSSL's callbacks.
let dtlsEndpointExDataIndex: Int32 = COpenSSL_SSL_get_ex_new_index()

/// One side of a DTLS 1.2 association with `use_srtp` (RFC 5764), sans-IO: the one owner of an OpenSSL `SSL`, with
/// memory BIOs instead of a socket.
///
/// Datagrams go in with `handleDatagram(_:now:)`; datagrams to send come out of `pollTransmit()`; the
/// retransmission timer is a deadline from `pollTimeout(now:)`, served with `handleTimeout(now:)`. The peer's
/// certificate must hash to `remoteFingerprint` (its `a=fingerprint`): a mismatch aborts the handshake with a
/// `bad_certificate` alert and throws `DTLSError.fingerprintMismatch`. On success the SRTP keys arrive as
/// `DTLSEvent.connected`.
///
/// ```swift
/// let endpoint = try DTLSEndpoint(context: context, role: .server, remoteFingerprint: offerFingerprint)
/// try endpoint.start(now: now)
/// try endpoint.handleDatagram(datagram, now: now)
/// while let datagram = endpoint.pollTransmit() { send(datagram) }
/// if case .connected(let keys) = endpoint.pollEvent() { ... SRTPSession(direction: .outbound, suite: keys.suite, key: keys.localKey) }
/// ```
///
/// OpenSSL runs its retransmission timer on its own clock (`gettimeofday`); `pollTimeout(now:)` maps the time it
/// has left onto the caller's clock, and `handleTimeout(now:)` does nothing when OpenSSL finds it early.
/// Not `Sendable`: one owner (one thread or event loop) drives it.
public final class DTLSEndpoint {
    /// Per-endpoint settings.
    public struct Configuration: Hashable, Sendable {
        /// The largest datagram to send (DTLS records and UDP payload): 1200 bytes, safe on every path WebRTC
        /// runs on (the same figure browsers use).
        public var mtu = 1200
        /// The first retransmission timeout: 1 s (RFC 6347 section 4.2.4.1). It doubles per retransmission.
        public var initialRetransmissionTimeout: Duration = .seconds(1)
        /// The ceiling of the doubling: 60 s (RFC 6347 section 4.2.4.1).
        public var maxRetransmissionTimeout: Duration = .seconds(60)

        /// The defaults.
        public init() {}
    }

    /// The smallest MTU accepted: DTLS headers plus a useful fragment.
    public static let mtuRange = 256...65_507
    /// The label of the DTLS-SRTP exporter (RFC 5764 section 4.2).
    static let exporterLabel = "EXTRACTOR-dtls_srtp"
    /// Scratch space for SSL_read: application data is not used over DTLS-SRTP, only drained.
    static let readBufferLength = 2048

    let ssl: OpaquePointer
    /// Owned by `ssl` (SSL_set_bio); kept to write received datagrams.
    let incoming: OpaquePointer
    /// Owned by `ssl`; kept to read what OpenSSL wrote.
    let outgoing: OpaquePointer
    /// Keeps the SSL_CTX alive as long as the SSL.
    public let context: DTLSContext
    /// The role.
    public let role: DTLSRole
    /// The fingerprint the peer's certificate must have.
    public let remoteFingerprint: DTLSFingerprint
    /// The settings.
    public let configuration: Configuration
    /// The state.
    public private(set) var state: DTLSState = .new
    /// The fingerprint of the certificate the peer presented, once seen.
    public private(set) var receivedFingerprint: DTLSFingerprint?
    /// Datagrams of application data received and dropped (DTLS-SRTP carries none).
    public private(set) var ignoredApplicationData = 0

    var transmits: [[UInt8]] = []
    var events: [DTLSEvent] = []
    var readBuffer = [UInt8](repeating: 0, count: DTLSEndpoint.readBufferLength)
    /// Whether the verification callback rejected the peer's certificate.
    var fingerprintRejected = false

    /// Creates an endpoint.
    /// - Parameters:
    ///   - context: The shared configuration and certificate.
    ///   - role: `.client` (`a=setup:active`) or `.server` (`a=setup:passive`).
    ///   - remoteFingerprint: The peer's `a=fingerprint`.
    ///   - configuration: MTU and retransmission timing.
    /// - Throws: `DTLSError.invalidConfiguration` for an MTU or timeout out of range, `DTLSError.openSSL` when
    ///   OpenSSL cannot create the `SSL` or its BIOs.
    public init(
        context: DTLSContext, role: DTLSRole, remoteFingerprint: DTLSFingerprint,
        configuration: Configuration = Configuration()
    ) throws(DTLSError) {
        guard Self.mtuRange.contains(configuration.mtu) else {
            throw .invalidConfiguration("MTU \(configuration.mtu) is outside \(Self.mtuRange)")
        }
        let initial = configuration.initialRetransmissionTimeout
        let maximum = configuration.maxRetransmissionTimeout
        guard initial >= .milliseconds(1), initial <= maximum, maximum <= .seconds(3600) else {
            throw .invalidConfiguration("retransmission timeouts must satisfy 1 ms <= initial <= max <= 1 h")
        }
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else { throw .openSSL(.drain("SSL_new")) }
        guard let incoming = BIO_new(BIO_s_mem()), let outgoing = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .openSSL(.drain("BIO_new"))
        }
        COpenSSL_BIO_set_mem_eof_retry(incoming)
        COpenSSL_BIO_set_mem_eof_retry(outgoing)
        SSL_set_bio(ssl, incoming, outgoing)  // the SSL owns both BIOs from here
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        self.context = context
        self.role = role
        self.remoteFingerprint = remoteFingerprint
        self.configuration = configuration

        COpenSSL_SSL_set_fixed_mtu(ssl, configuration.mtu)
        SSL_set_ex_data(ssl, dtlsEndpointExDataIndex, Unmanaged.passUnretained(self).toOpaque())
        SSL_set_verify(ssl, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, Self.verifyCallback)
        DTLS_set_timer_cb(ssl, Self.timerCallback)
        switch role {
        case .client: SSL_set_connect_state(ssl)
        case .server: SSL_set_accept_state(ssl)
        }
    }

    deinit {
        SSL_free(ssl)  // frees both BIOs too
    }

    /// Starts the handshake: a client sends its ClientHello; a server waits for one.
    /// - Parameters:
    ///   - now: The current time.
    /// - Throws: `DTLSError` when OpenSSL fails, or `.invalidState` when already started.
    public func start(now: MonotonicTime) throws(DTLSError) {
        guard state == .new else { throw .invalidState("start called twice") }
        state = .handshaking
        if role == .client { try advance() }
    }

    /// Handles one datagram the demultiplexer classified as DTLS (first byte 20...63, RFC 7983).
    /// - Parameters:
    ///   - datagram: The bytes received.
    ///   - now: The current time.
    /// - Throws: `DTLSError.fingerprintMismatch` when the peer's certificate is not the announced one,
    ///   `.noSRTPProfile`, or `.openSSL` when the handshake fails. Alerts to send are queued before it throws.
    public func handleDatagram(_ datagram: some Collection<UInt8>, now: MonotonicTime) throws(DTLSError) {
        switch state {
        case .closed, .failed: return
        case .new:
            // A server that was not started yet takes the ClientHello as its start.
            state = .handshaking
        case .handshaking, .connected: break
        }
        guard !datagram.isEmpty, datagram.count <= Int(Int32.max) else { return }
        let written = datagram.withContiguousStorageIfAvailable { buffer in
            BIO_write(incoming, buffer.baseAddress, Int32(buffer.count))
        } ?? Array(datagram).withUnsafeBufferPointer { buffer in
            BIO_write(incoming, buffer.baseAddress, Int32(buffer.count))
        }
        guard written == Int32(datagram.count) else { throw fail(.openSSL(.drain("BIO_write"))) }
        try advance()
    }

    /// The next datagram to send, oldest first.
    public func pollTransmit() -> [UInt8]? {
        transmits.isEmpty ? nil : transmits.removeFirst()
    }

    /// The next event, oldest first.
    public func pollEvent() -> DTLSEvent? {
        events.isEmpty ? nil : events.removeFirst()
    }

    /// When `handleTimeout(now:)` must next be called, or `nil` when no retransmission timer runs.
    /// - Parameters:
    ///   - now: The current time, onto which OpenSSL's remaining time is mapped.
    /// - Returns: The deadline.
    public func pollTimeout(now: MonotonicTime) -> MonotonicTime? {
        guard state == .handshaking || state == .connected else { return nil }
        var seconds = 0
        var microseconds = 0
        guard COpenSSL_DTLS_get_timeout(ssl, &seconds, &microseconds) == 1 else { return nil }
        return now + .seconds(seconds) + .microseconds(microseconds)
    }

    /// Retransmits the last flight when OpenSSL's timer has expired.
    /// - Parameters:
    ///   - now: The current time.
    /// - Throws: `DTLSError.openSSL` when OpenSSL gives up (too many retransmissions).
    public func handleTimeout(now: MonotonicTime) throws(DTLSError) {
        guard state == .handshaking || state == .connected else { return }
        ERR_clear_error()
        if COpenSSL_DTLS_handle_timeout(ssl) < 0 {
            throw fail(.openSSL(.drain("DTLSv1_handle_timeout")))
        }
        drainOutgoing()
    }

    /// Sends close_notify and closes the endpoint.
    public func close() {
        guard state == .handshaking || state == .connected else { return }
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
        drainOutgoing()
        state = .closed
    }

    // MARK: - Internals

    /// Runs the handshake or reads records, then queues what OpenSSL wrote.
    func advance() throws(DTLSError) {
        defer { drainOutgoing() }
        if state == .handshaking {
            ERR_clear_error()
            let result = SSL_do_handshake(ssl)
            if result != 1 {
                let error = SSL_get_error(ssl, result)
                if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return }
                throw fail(handshakeError(sslError: error))
            }
            try completeHandshake()
        }
        try readRecords()
    }

    /// The error a failed handshake reports: the fingerprint check first, then OpenSSL's queue.
    func handshakeError(sslError: Int32) -> DTLSError {
        if fingerprintRejected {
            ERR_clear_error()
            return .fingerprintMismatch(expected: remoteFingerprint, received: receivedFingerprint)
        }
        return .openSSL(.drain("SSL_do_handshake", sslError: sslError))
    }

    /// Checks the peer certificate once more, exports the keys and reports them.
    func completeHandshake() throws(DTLSError) {
        guard let peer = SSL_get0_peer_certificate(ssl) else { throw fail(.noPeerCertificate) }
        let fingerprint = try DTLSCertificate.fingerprint(of: peer, hashFunction: remoteFingerprint.hashFunction)
        receivedFingerprint = fingerprint
        guard fingerprint == remoteFingerprint else {
            throw fail(.fingerprintMismatch(expected: remoteFingerprint, received: fingerprint))
        }
        guard let profile = SSL_get_selected_srtp_profile(ssl) else { throw fail(.noSRTPProfile) }
        let id = UInt(profile.pointee.id)
        guard let suite = SRTPSuite(dtlsProfileID: id) else { throw fail(.unsupportedSRTPProfile(id: id)) }
        let keys = try exportKeys(suite: suite)
        state = .connected
        events.append(.connected(keys))
    }

    /// Exports the keying material and splits it: client key, server key, client salt, server salt
    /// (RFC 5764 section 4.2). The buffer is wiped before it is freed.
    func exportKeys(suite: SRTPSuite) throws(DTLSError) -> DTLSSRTPKeys {
        let keyLength = suite.masterKeyLength
        let saltLength = suite.masterSaltLength
        let total = 2 * (keyLength + saltLength)
        let material = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: total)
        material.initialize(repeating: 0)
        defer {
            OPENSSL_cleanse(material.baseAddress, total)
            material.deallocate()
        }
        ERR_clear_error()
        let label = Self.exporterLabel
        guard SSL_export_keying_material(ssl, material.baseAddress, total, label, label.utf8.count, nil, 0, 0) == 1
        else { throw fail(.openSSL(.drain("SSL_export_keying_material"))) }
        let view = UnsafeBufferPointer(material)
        let clientKey = view[0..<keyLength]
        let serverKey = view[keyLength..<(2 * keyLength)]
        let clientSalt = view[(2 * keyLength)..<(2 * keyLength + saltLength)]
        let serverSalt = view[(2 * keyLength + saltLength)..<total]
        do {
            let client = try SRTPMasterKey(key: clientKey, salt: clientSalt, for: suite)
            let server = try SRTPMasterKey(key: serverKey, salt: serverSalt, for: suite)
            return role == .client
                ? DTLSSRTPKeys(suite: suite, localKey: client, remoteKey: server)
                : DTLSSRTPKeys(suite: suite, localKey: server, remoteKey: client)
        } catch {
            // The lengths come from the suite itself, so this cannot happen; report rather than trap.
            throw fail(.invalidState("exported keys do not fit \(suite.sdpName): \(error)"))
        }
    }

    /// Reads records after the handshake: retransmitted flights are answered by OpenSSL, close_notify closes,
    /// application data is dropped.
    func readRecords() throws(DTLSError) {
        while state == .connected {
            ERR_clear_error()
            let count = readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                ignoredApplicationData += 1
                continue
            }
            let error = SSL_get_error(ssl, count)
            switch error {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return
            case SSL_ERROR_ZERO_RETURN:
                ERR_clear_error()
                _ = SSL_shutdown(ssl)
                state = .closed
                events.append(.closed)
                return
            default:
                throw fail(.openSSL(.drain("SSL_read", sslError: error)))
            }
        }
    }

    /// Moves what OpenSSL wrote into whole-record datagrams of at most the MTU.
    func drainOutgoing() {
        let pending = Int(BIO_ctrl_pending(outgoing))
        guard pending > 0 else { return }
        var stream = [UInt8](repeating: 0, count: pending)
        let read = stream.withUnsafeMutableBytes { BIO_read(outgoing, $0.baseAddress, Int32(clamping: $0.count)) }
        guard read > 0 else { return }
        if Int(read) < pending { stream.removeLast(pending - Int(read)) }
        transmits += DTLSRecordSplitter.datagrams(from: stream, mtu: configuration.mtu)
    }

    /// Marks the endpoint failed and returns the error to throw.
    func fail(_ error: DTLSError) -> DTLSError {
        state = .failed
        return error
    }

    /// The endpoint an `SSL` belongs to.
    static func endpoint(of ssl: OpaquePointer?) -> DTLSEndpoint? {
        guard let ssl, let pointer = SSL_get_ex_data(ssl, dtlsEndpointExDataIndex) else { return nil }
        return Unmanaged<DTLSEndpoint>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Accepts the peer's leaf certificate only when it hashes to the expected fingerprint; the chain is not
    /// checked against any CA (self-signed certificates are the norm, RFC 8827 section 6.5).
    static let verifyCallback: @convention(c) (Int32, OpaquePointer?) -> Int32 = { _, store in
        guard let store, let endpoint = endpoint(of: COpenSSL_SSL_from_store(store)) else { return 0 }
        guard X509_STORE_CTX_get_error_depth(store) == 0 else { return 1 }
        guard let certificate = X509_STORE_CTX_get_current_cert(store),
              let fingerprint = try? DTLSCertificate.fingerprint(
                  of: certificate, hashFunction: endpoint.remoteFingerprint.hashFunction)
        else {
            endpoint.fingerprintRejected = true
            return 0
        }
        endpoint.receivedFingerprint = fingerprint
        guard fingerprint == endpoint.remoteFingerprint else {
            endpoint.fingerprintRejected = true
            return 0
        }
        return 1
    }

    /// The retransmission timer: the configured initial timeout, doubled per expiry up to the maximum.
    static let timerCallback: @convention(c) (OpaquePointer?, UInt32) -> UInt32 = { ssl, previous in
        let configuration = endpoint(of: ssl)?.configuration ?? Configuration()
        let initial = microseconds(configuration.initialRetransmissionTimeout)
        let maximum = microseconds(configuration.maxRetransmissionTimeout)
        if previous == 0 { return initial }
        return previous >= maximum / 2 ? maximum : previous * 2
    }

    /// A duration in microseconds, clamped to `UInt32` (the timers are at most an hour, checked in init).
    static func microseconds(_ duration: Duration) -> UInt32 {
        UInt32(clamping: duration.saturatingNanoseconds / 1000)
    }
}
