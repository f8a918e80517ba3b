// swift-tools-version:6.1
// rtc-h264: a real-time H.264 sender (OpenH264 -> RFC 6184 RTP -> SRTP -> UDP) for Linux.
import PackageDescription

let package = Package(
    name: "rtc-h264",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "MediaTime", targets: ["MediaTime"]),
        .library(name: "H264", targets: ["H264"]),
        .library(name: "RTP", targets: ["RTP"]),
        .library(name: "SRTP", targets: ["SRTP"]),
        .library(name: "Video", targets: ["Video"]),
        .library(name: "Codec", targets: ["Codec"]),
        .library(name: "SDP", targets: ["SDP"]),
        .library(name: "Transport", targets: ["Transport"]),
        .library(name: "CongestionControl", targets: ["CongestionControl"]),
        .library(name: "Sender", targets: ["Sender"]),
        .library(name: "Receiver", targets: ["Receiver"]),
        .library(name: "Control", targets: ["Control"]),
        .library(name: "STUN", targets: ["STUN"]),
        .library(name: "DTLS", targets: ["DTLS"]),
        .library(name: "WebRTC", targets: ["WebRTC"]),
        .library(name: "WHEP", targets: ["WHEP"]),
        .library(name: "WHIP", targets: ["WHIP"]),
        .library(name: "WHEPPlayer", targets: ["WHEPPlayer"]),
        .library(name: "TURN", targets: ["TURN"]),
        .library(name: "HTTPRequester", targets: ["HTTPRequester"]),
        // The whole public API in one import (`import RTCH264`); the DocC catalog lives here.
        .library(name: "RTCH264", targets: ["RTCH264"]),
        .executable(name: "rtc-h264", targets: ["rtc-h264"]),
    ],
    // TLS is on by default. `--disable-default-traits` builds without swift-nio-ssl and the BoringSSL it compiles
    // (most of a fresh build): no https:// URLs, no --tls-cert, no TURN over TLS, each a clear error at its use. README
    // command 1 builds so, since the main job needs no TLS.
    traits: [
        .trait(
            name: "TLS",
            description: "HTTPS for serve --whep and the control endpoint, https:// WHIP/WHEP/control URLs and turns: "
                + "TURN servers (swift-nio-ssl)"),
        .default(enabledTraits: ["TLS"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // `swift package generate-documentation` (the DocC catalog in Sources/RTCH264); a build-time plugin only.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: C wrappers (the only places C is visible)
        .systemLibrary(
            name: "COpenH264",
            pkgConfig: "openh264",
            providers: [.apt(["libopenh264-dev"])]
        ),
        // Why a shim: OpenH264 2.3.1's C vtable declares ForceIntraFrame(ISVCEncoder*, bool) while the C++ method is
        // ForceIntraFrame(bool, int iLayerId = -1); through the C vtable iLayerId is garbage. The shim calls the C++ method.
        .target(
            name: "COpenH264Shim",
            dependencies: ["COpenH264"],
            linkerSettings: [.linkedLibrary("stdc++")]
        ),
        .systemLibrary(
            name: "CSRTP",
            pkgConfig: "libsrtp2",
            providers: [.apt(["libsrtp2-dev"])]
        ),
        // OpenSSL 3 for DTLS 1.2 + use_srtp and STUN's HMAC-SHA1. The module map's shim.h turns the macros and
        // variadic functions Swift cannot call into prefixed static inline functions.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // libyuv ships no pkg-config file on Debian; the module map links -lyuv.
        .systemLibrary(
            name: "CYUV",
            providers: [.apt(["libyuv-dev"])]
        ),

        // MARK: Pure Swift core (no I/O, no clock, no C)
        // Time values every layer shares: MonotonicTime, NTPTimestamp, the injected clocks, Duration helpers.
        .target(name: "MediaTime"),
        .target(name: "H264"),
        .target(name: "RTP", dependencies: ["H264", "MediaTime"]),
        .target(name: "SDP"),
        // Send-side congestion control: loss- and delay-based estimators, probing, the retransmissions' share (pure).
        .target(name: "CongestionControl", dependencies: ["RTP", "MediaTime"]),
        // STUN messages (RFC 8489); pure but for OpenSSL's one-shot HMAC-SHA1.
        .target(name: "STUN", dependencies: ["COpenSSL"]),
        // A TURN client (RFC 8656), sans-IO: allocation, refreshes, permissions, channels, ChannelData framing.
        .target(name: "TURN", dependencies: ["STUN", "MediaTime"]),
        // ICE (lite and controlling), JSEP SDP for one H.264 video m-line, the RFC 7983 demultiplexer: sans-IO.
        // Its ICEGatherer runs the TURN and STUN clients of a full agent's servers.
        .target(name: "WebRTC", dependencies: ["STUN", "TURN", "DTLS", "RTP", "H264", "MediaTime"]),

        // MARK: Owners of C handles
        // libsrtp2's AES-ICM and HMAC-SHA1 on OpenSSL's libcrypto, put into libsrtp2's crypto kernel in place of
        // Debian's NSS ones (about 5 us and 14 allocations per packet less); libsrtp2 still does all of SRTP.
        .target(name: "CSRTPCrypto", dependencies: ["CSRTP", "COpenSSL"]),
        .target(name: "SRTP", dependencies: ["CSRTP", "CSRTPCrypto"]),
        .target(name: "Video", dependencies: ["CYUV", "MediaTime"]),
        .target(name: "Codec", dependencies: ["H264", "MediaTime", "Video", "COpenH264", "COpenH264Shim"]),
        // DTLS 1.2 + use_srtp over OpenSSL, sans-IO (memory BIOs): one owner per SSL_CTX, SSL, X509, EVP_PKEY.
        .target(name: "DTLS", dependencies: ["COpenSSL", "SRTP", "RTP", "MediaTime"]),

        // MARK: The component: one UDP flow (SwiftNIO underneath, never in a public API), the sender's stages, the
        // receiver, and the HTTP control endpoint (its own module, so embedding the sender links no HTTP).
        .target(name: "Transport", dependencies: [
            "RTP", "SRTP", "TURN",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        // A WebRTC peer's ICE and DTLS (WebRTC's sans-IO PeerTransport) run over a UDPTransport's socket, and the
        // TCP or TLS connections to TURN servers reached so (TURNStreams).
        .target(name: "WebRTCTransport", dependencies: [
            "Transport", "WebRTC", "STUN", "TURN", "DTLS", "RTP", "MediaTime",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        .target(name: "Sender", dependencies: [
            "H264", "MediaTime", "RTP", "SRTP", "Video", "Codec", "SDP", "Transport", "CongestionControl",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        .target(name: "Receiver", dependencies: [
            "H264", "MediaTime", "RTP", "SRTP", "Video", "Codec", "Transport",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        // The HTTP/1.1 connection handling the control endpoint and WHEP share (bounded bodies, routing, replies).
        // HTTPS (swift-nio-ssl, its own BoringSSL) when a certificate and key are given.
        .target(name: "HTTPEndpoint", dependencies: [
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["TLS"])),
        ]),
        // One HTTP/1.1 request and its reply over a fresh connection, http:// or https:// (certificates verified by
        // swift-nio-ssl): the client the WHIP client and `rtc-h264 control` share, with its URLs (`HTTPURL`).
        .target(name: "HTTPRequester", dependencies: [
            "HTTPEndpoint", "MediaTime",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["TLS"])),
        ]),
        .target(name: "Control", dependencies: [
            "Codec", "Sender", "HTTPEndpoint", "HTTPRequester",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["TLS"])),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The WHIP client (RFC 9725): its HTTP/1.1 exchanges (HTTPRequester) and the publisher over the sender.
        .target(name: "WHIP", dependencies: [
            "WebRTC", "WebRTCTransport", "Transport", "DTLS", "STUN", "TURN", "RTP", "H264", "Codec", "Sender", "HTTPRequester",
            "HTTPEndpoint", "MediaTime",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),

        // The WHEP client: the WHIP client's offering side (HTTP exchange, socket, ICE, DTLS) with a recvonly offer,
        // and the receiver over its transport.
        .target(name: "WHEPPlayer", dependencies: [
            "WHIP", "Receiver", "WebRTC", "WebRTCTransport", "Transport", "DTLS", "STUN",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // The WHEP server: HTTP (NIOHTTP1), one encoder shared by every viewer, a WebRTCLink + SenderCore per viewer;
        // a `ControlTarget` (Control) so that one control endpoint serves it and the sender alike.
        .target(name: "WHEP", dependencies: [
            "HTTPEndpoint", "HTTPRequester", "Control", "Codec", "DTLS", "H264", "MediaTime", "RTP", "SRTP", "STUN", "Sender", "Transport", "Video", "WebRTC", "WebRTCTransport",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["TLS"])),
        ]),

        // MARK: The umbrella: every public module re-exported, and the DocC catalog.
        .target(name: "RTCH264", dependencies: [
            "MediaTime", "H264", "RTP", "SRTP", "Video", "Codec", "SDP", "Transport", "CongestionControl", "Sender",
            "Receiver", "HTTPRequester", "Control", "STUN", "TURN", "DTLS", "WebRTC", "WHEP", "WHIP", "WHEPPlayer",
        ]),

        // MARK: Tool
        .executableTarget(
            name: "rtc-h264",
            dependencies: [
                "H264", "MediaTime", "RTP", "SRTP", "Video", "Codec", "SDP", "Sender", "Receiver", "Control", "WHEP", "WHIP",
                "WHEPPlayer", "HTTPEndpoint",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // MARK: Tests
        // What more than one test target shares (Foundation and MediaTime only): child processes waited for off the
        // cooperative pool (the rtc-h264 binary, curl), raw TCP and UDP sockets, polling, `ms`, the Guide's examples
        // checked against Docs/Guide.md. Also the test-only TLS certificates and keys (Tests/TestSupport/TLS, read by path).
        .target(name: "TestSupport", dependencies: ["MediaTime", "STUN"], path: "Tests/TestSupport", exclude: ["TLS"]),
        // `import RTCH264` alone reaches the API: a sender to a receiver, a WHEP server, the control endpoint.
        .testTarget(name: "RTCH264Tests", dependencies: [
            "RTCH264", "TestSupport", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .testTarget(name: "H264Tests", dependencies: ["H264", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "RTPTests", dependencies: ["RTP", "H264", "MediaTime", "TestSupport"]),
        .testTarget(name: "SRTPTests", dependencies: ["SRTP"]),
        .testTarget(name: "VideoTests", dependencies: ["Video", "TestSupport"]),
        .testTarget(name: "CodecTests", dependencies: ["Codec", "H264", "MediaTime", "RTP", "Video", "TestSupport"]),
        .testTarget(name: "SDPTests", dependencies: ["SDP"]),
        .testTarget(name: "ReceiverTests", dependencies: ["Receiver", "RTP", "MediaTime", "TestSupport"]),
        .testTarget(name: "CongestionControlTests", dependencies: ["CongestionControl", "RTP", "MediaTime", "TestSupport"]),
        // The real sender and receiver sessions (and the pure stages) over a simulated link on a virtual clock.
        .testTarget(name: "StageSimulationTests", dependencies: [
            "Sender", "Receiver", "CongestionControl", "RTP", "H264", "Codec", "SRTP", "MediaTime", "TestSupport", "Video",
        ]),
        .testTarget(name: "STUNTests", dependencies: ["STUN", "COpenSSL"]),
        .testTarget(name: "TURNTests", dependencies: ["TURN", "STUN", "MediaTime", "TestSupport"]),
        .testTarget(name: "DTLSTests", dependencies: ["DTLS", "SRTP", "RTP", "MediaTime"]),
        .testTarget(
            name: "WebRTCTests", dependencies: ["WebRTC", "STUN", "DTLS", "SRTP", "RTP", "H264", "MediaTime", "TestSupport"], exclude: ["Interop"]
        ),
        // The HTTP client's URLs: parsing and RFC 3986 reference resolution (its exchanges are tested through WHIP's).
        .testTarget(name: "HTTPRequesterTests", dependencies: ["HTTPRequester"]),
        .testTarget(name: "WHIPTests", dependencies: [
            "WHIP", "HTTPRequester", "HTTPEndpoint", "WebRTC", "WebRTCTransport", "Sender", "Codec", "TestSupport",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),
        // One UDP flow over loopback: the peer filter and the counters, SRTP both ways, media held until secured, a
        // socket bound again after a send error, and a transport freed once dropped.
        .testTarget(name: "TransportTests", dependencies: [
            "Transport", "RTP", "SRTP", "TestSupport",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        .testTarget(name: "WebRTCTransportTests", dependencies: [
            "WebRTCTransport", "Transport", "WebRTC", "STUN", "TURN", "DTLS", "RTP", "TestSupport",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        // The WHEP server: routing (pure), HTTP over loopback, and real viewers (our full ICE agent + DTLS client).
        .testTarget(name: "WHEPTests", dependencies: [
            "WHEP", "WHEPPlayer", "WHIP", "Receiver", "Control", "Sender", "Transport", "WebRTC", "WebRTCTransport", "DTLS", "STUN", "RTP", "H264", "Codec", "Video", "TestSupport",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        // The control endpoint: requests as commands (pure), and its HTTP(S) server on loopback in front of a sender.
        .testTarget(name: "ControlTests", dependencies: ["Control", "Sender", "Codec", "Video", "HTTPEndpoint", "TestSupport"]),
        .testTarget(name: "SenderTests", dependencies: [
            "Sender", "Receiver", "Control", "Transport", "H264", "MediaTime", "RTP", "SRTP", "SDP", "Codec", "Video", "TestSupport",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
    ]
)
