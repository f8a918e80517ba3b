// swift-tools-version:6.1
// Side-by-side benchmarks, kept out of the main package so its build stays fast. Run with the scripts beside this file
// (always in release mode): each prints our figure, the reference figure and their ratio.
import PackageDescription

let package = Package(
    name: "rtc-h264-benchmarks",
    dependencies: [
        .package(path: "rtc-h264"),  // a symlink to "..": gives the package a stable identity whatever the clone is called
    ],
    targets: [
        // Usage errors and option values shared by the benchmark tools.
        .target(name: "BenchArguments"),
        // Issue 2: Annex-B indexing throughput.
        .executableTarget(name: "AnnexBBench", dependencies: [.product(name: "H264", package: "rtc-h264")]),
        // Issue 3: encoder stage against a minimal C program calling OpenH264 (C/encode_loop.c).
        .executableTarget(name: "EncoderBench", dependencies: [
            "BenchArguments",
            .product(name: "Codec", package: "rtc-h264"), .product(name: "Video", package: "rtc-h264"),
            .product(name: "H264", package: "rtc-h264"),
        ]),
        // Issue 13: delivered quality per target bitrate (frames, freezes, rate, PSNR-Y scaled back to the source size).
        .executableTarget(name: "QualityBench", dependencies: [
            .product(name: "Codec", package: "rtc-h264"), .product(name: "Video", package: "rtc-h264"),
            .product(name: "H264", package: "rtc-h264"), .product(name: "RTP", package: "rtc-h264"),
            .product(name: "MediaTime", package: "rtc-h264"),
        ]),
        // Issue 23: 3-layer simulcast against one 720p stream, CPU per second of 720p30 video (run-simulcast.sh).
        .executableTarget(name: "SimulcastBench", dependencies: [
            "BenchArguments",
            .product(name: "Sender", package: "rtc-h264"), .product(name: "Codec", package: "rtc-h264"),
            .product(name: "Video", package: "rtc-h264"),
        ]),
        // Issue 4: packetize + protect against a C loop calling srtp_protect (C/srtp_loop.c).
        .executableTarget(name: "SRTPBench", dependencies: [
            .product(name: "RTP", package: "rtc-h264"), .product(name: "SRTP", package: "rtc-h264"),
            .product(name: "H264", package: "rtc-h264"),
        ]),
    ]
)
