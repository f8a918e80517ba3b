// Simulcast CPU benchmark (issue 23 target: 3-layer simulcast at 720p30 at most 1.35x the CPU of the single-layer
// sender). One `H264Sender` sending plain RTP over loopback UDP to a sink in this process that only counts bytes per
// SSRC; 1280x720 I420 frames preloaded (testsrc2 Y4M, or the Video module's TestPattern), then sent at 30 fps in real
// time (a live 720p30 source: the CPU per second is what counts) or, with --unpaced, as fast as the encoders take
// them (waitForEncoderBlocking() before each frame; capture times still 1/30 s apart); then finish(). Run through
// Tests/Benchmarks/run-simulcast.sh.
//
// Usage: SimulcastBench [--layers 1|3] [--frames N] [--bitrate BPS] [--y4m FILE] [--unpaced] [--threads-report]
//                       [--no-denoise]
//   --layers 1: one 1280x720 stream (default 2.5 Mbit/s); --layers 3: SimulcastEncoding.standard(count: 3), RIDs
//   q/h/f at 320x180, 640x360, 1280x720 (default 3.2 Mbit/s, split 150k/500k/2.5M). --no-denoise turns OpenH264's
//   denoiser off (`EncoderConfiguration.denoise`, on by default) in every layer's encoder.
// Prints one "cpu_per_s=..." line: process CPU (getrusage user+sys, from the first frame to the end of finish(),
// the sink thread's own CPU subtracted) per second of video (= share of one core), per input frame, the wall time,
// the sender's statistics and the bytes received per stream. --threads-report adds one line per thread (CPU from
// /proc/self/task/*/schedstat between the first frame and the last frame's encode, before finish()).
import BenchArguments
import Codec
import Foundation
import Sender
import Video

#if canImport(Glibc)
import Glibc
#endif

var arguments = CommandLine.arguments.dropFirst()
var layers = 1
var frameCount = 300
var bitrate: Int?
var y4mPath: String?
var paced = true
var threadsReport = false
var denoise = EncoderConfiguration.defaultDenoise
while let argument = arguments.popFirst() {
    switch argument {
    case "--layers":
        layers = integerValue(of: argument, in: 1...3, from: &arguments)
        if layers == 2 { usageError("--layers takes 1 or 3") }
    case "--frames": frameCount = integerValue(of: argument, in: 1...100_000, from: &arguments)
    case "--bitrate": bitrate = integerValue(of: argument, in: 100_000...14_000_000, from: &arguments)
    case "--y4m":
        guard let path = arguments.popFirst() else { usageError("--y4m needs a file") }
        y4mPath = path
    case "--unpaced": paced = false
    case "--threads-report": threadsReport = true
    case "--no-denoise": denoise = false
    default: usageError("unknown argument \(argument)")
    }
}
let targetBitrate = bitrate ?? (layers == 1 ? 2_500_000 : 3_200_000)
let width = 1280, height = 720, frameRate = 30.0

// MARK: Clocks

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

/// User + system CPU time of the whole process (every thread), in seconds (getrusage RUSAGE_SELF).
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return s(usage.ru_utime) + s(usage.ru_stime)
}

/// CPU time of the calling thread, in seconds.
func threadCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// Every thread of this process: tid -> (name, CPU seconds on the CPU from schedstat, nanosecond resolution).
func threadTimes() -> [Int: (name: String, cpu: Double)] {
    var result: [Int: (name: String, cpu: Double)] = [:]
    guard let tids = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return result }
    for tid in tids {
        guard let id = Int(tid),
              let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/schedstat", encoding: .utf8),
              let ns = stat.split(separator: " ").first.flatMap({ Double($0) }) else { continue }
        let name = (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        result[id] = (name, ns / 1e9)
    }
    return result
}

/// The calling thread's kernel id (from /proc/thread-self, "<pid>/task/<tid>"; Glibc's gettid is not imported).
func currentThreadID() -> Int32 {
    let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
    return link.split(separator: "/").last.flatMap { Int32($0) } ?? 0
}

// MARK: The sink

/// A UDP socket on 127.0.0.1 read by a thread of its own, counting the RTP bytes (whole datagrams) per SSRC; its
/// thread's CPU is measured so that it can be taken out of the process's figure.
final class Sink: @unchecked Sendable {
    let fd: Int32
    let port: Int
    private let lock = NSLock()
    private var bytes: [UInt32: Int] = [:]
    private var packets: [UInt32: Int] = [:]
    private var stopping = false
    private var threadCPU = 0.0
    /// The reading thread's id (for the per-thread report).
    private(set) var threadID: Int32 = 0
    private let done = DispatchSemaphore(value: 0)

    init() {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        precondition(fd >= 0, "socket: \(errno)")
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        precondition(bound, "bind: \(errno)")
        port = Int(UInt16(bigEndian: address.sin_port))
        var buffer: Int32 = 4 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [self] in run() }
        thread.name = "bench-sink"
        thread.start()
    }

    private func run() {
        lock.withLock { threadID = currentThreadID() }
        var datagram = [UInt8](repeating: 0, count: 2048)
        while true {
            let count = datagram.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if lock.withLock({ stopping }) { break }
                continue
            }
            // RTP only (version 2, not an RTCP packet type).
            guard count >= 12, datagram[0] >> 6 == 2, !(200...206).contains(datagram[1]) else { continue }
            let ssrc = UInt32(datagram[8]) << 24 | UInt32(datagram[9]) << 16 | UInt32(datagram[10]) << 8
                | UInt32(datagram[11])
            lock.withLock {
                bytes[ssrc, default: 0] += count
                packets[ssrc, default: 0] += 1
            }
        }
        let cpu = threadCPUSeconds()
        lock.withLock { threadCPU = cpu }
        done.signal()
    }

    /// Stops the thread (within 100 ms) and returns the counts and the thread's CPU seconds.
    func stop() -> (bytes: [UInt32: Int], packets: [UInt32: Int], cpu: Double) {
        lock.withLock { stopping = true }
        done.wait()
        close(fd)
        return lock.withLock { (bytes, packets, threadCPU) }
    }
}

// MARK: Frames

// Preloaded, so that reading or rendering them is not counted.
var frames: [I420Frame] = []
if let y4mPath {
    let reader = try Y4MReader(path: y4mPath)
    while frames.count < frameCount, let frame = try reader.readFrame() { frames.append(frame) }
    guard let first = frames.first else { usageError("no frames read from \(y4mPath)") }
    guard first.width == width, first.height == height else {
        usageError("\(y4mPath) is \(first.width)x\(first.height), expected \(width)x\(height)")
    }
    // A shorter file is sent again from its start.
    var index = 0
    while frames.count < frameCount { frames.append(frames[index]); index += 1 }
} else {
    let pattern = try TestPattern(width: width, height: height)
    frames = (0..<frameCount).map { pattern.frame($0) }
}

// MARK: The sender

let sink = Sink()
var configuration = SenderConfiguration(
    peerHost: "127.0.0.1", peerPort: sink.port,
    encoder: EncoderConfiguration(width: width, height: height, frameRate: frameRate, targetBitrate: targetBitrate))
configuration.localHost = "127.0.0.1"
configuration.encoder.denoise = denoise
configuration.security = nil
if layers > 1 {
    configuration.simulcast = SimulcastEncoding.standard(width: width, height: height, count: layers)
    configuration.mid = "0"
    configuration.midExtensionID = 7
    configuration.ridExtensionID = 8
}
let sender = try await H264Sender(configuration: configuration)
let ssrcNames: [UInt32: String] = layers > 1
    ? Dictionary(uniqueKeysWithValues: zip(sender.simulcastSSRCs.map(\.rawValue), configuration.simulcast.map {
        "\($0.rid):\($0.layer.width)x\($0.layer.height)"
    }))
    : [sender.ssrc.rawValue: "\(width)x\(height)"]
// Let the session's start (rates, first reports) settle before the clock starts.
try await Task.sleep(for: .milliseconds(200))

let clock = ContinuousClock()
let threadsBefore = threadTimes()
let cpuStart = processCPUSeconds()
let start = clock.now
/// The thread the frames are sent from (the main actor's; dispatch_main moved it off the main thread).
var feederThread: Int32 = 0
/// Sends every frame (at its capture time when paced) and returns how many were more than 5 ms late.
@MainActor func feed() throws -> Int {
    feederThread = currentThreadID()
    var late = 0
    for (index, frame) in frames.enumerated() {
        let captureTime = start + .seconds(Double(index) / frameRate)
        if paced {
            let wait = captureTime - clock.now
            if wait > .zero { Thread.sleep(forTimeInterval: seconds(wait)) } else if wait < .milliseconds(-5) { late += 1 }
        }
        // No frame lost: a frame waits for the encoders (late rather than dropped), as FramePump does.
        sender.waitForEncoderBlocking()
        // Capture times on the 30 fps grid either way, so that rate control sees the same media time.
        try frame.withView { try sender.send($0, captureTime: captureTime) }
    }
    sender.waitForEncoderBlocking()
    return late
}
let late = try feed()
let fedAt = clock.now
// The last frame taken: give the encoders time to finish it before the per-thread snapshot (threads end at finish()).
try await Task.sleep(for: .milliseconds(150))
let threadsAfter = threadTimes()
let stats = try await sender.finish()
let cpu = processCPUSeconds() - cpuStart
let elapsed = seconds(clock.now - start)
let feedElapsed = seconds(fedAt - start)
let received = sink.stop()
let cpuSender = cpu - received.cpu

let videoSeconds = Double(frames.count) / frameRate
let perStream = received.bytes.keys.sorted { (ssrcNames[$0] ?? "") < (ssrcNames[$1] ?? "") }.map { ssrc in
    let name = ssrcNames[ssrc] ?? String(ssrc)
    let kbps = Double(received.bytes[ssrc]!) * 8 / videoSeconds / 1000
    return "\(name)=\(received.bytes[ssrc]!)B/\(received.packets[ssrc]!)p/\(String(format: "%.0f", kbps))k"
}.joined(separator: ",")
print(String(format: "cpu_per_s=%.4f cpu_ms_per_frame=%.3f cpu_s=%.3f sink_cpu_s=%.3f wall_s=%.2f feed_s=%.2f fps=%.1f",
             cpuSender / videoSeconds, cpuSender * 1000 / Double(frames.count), cpuSender, received.cpu, elapsed,
             feedElapsed, Double(frames.count) / feedElapsed)
      + " mode=\(paced ? "paced" : "unpaced") layers=\(layers) bitrate=\(targetBitrate) denoise=\(denoise)"
      + " frames=\(frames.count)"
      + " late=\(late) sent=\(stats.framesSent) encoded=\(stats.framesEncoded) skipped=\(stats.framesSkipped)"
      + " dropped=\(stats.framesDropped) bytes=\(stats.bytesSent) packets=\(stats.packetsSent)"
      + " size=\(stats.frameWidth)x\(stats.frameHeight)"
      + String(format: " encode_s=%.3f", stats.totalEncodeTime) + " streams=\(perStream)")
if threadsReport {
    // One line per thread that ran, in order of creation. The encoders' threads are event loops of their own
    // (NIO-ELT-*), created lowest layer first; the I/O loop is NIO's singleton (NIO-SGLTN-*).
    let encoderThreads = threadsAfter.filter { $0.value.name.hasPrefix("NIO-ELT-") }.keys.sorted()
    let layerNames = layers > 1 ? configuration.simulcast.map { "encoder \($0.rid) \($0.layer.width)x\($0.layer.height)" }
        : ["encoder \(width)x\(height)"]
    for tid in threadsAfter.keys.sorted() {
        let after = threadsAfter[tid]!
        let used = after.cpu - (threadsBefore[tid]?.cpu ?? 0)
        guard used >= 0.0005 else { continue }
        var role = ""
        if let index = encoderThreads.firstIndex(of: tid), encoderThreads.count == layerNames.count {
            role = layerNames[index]
        } else if after.name.hasPrefix("NIO-SGLTN") {
            role = "I/O loop"
        } else if tid == Int(feederThread) {
            role = "feeder (send: copies)"
        } else if tid == Int(sink.threadID) {
            role = "sink (not counted)"
        }
        print(String(format: "thread %d %@ cpu_s=%.3f per_s=%.4f ms_per_frame=%.3f", tid, after.name, used,
                     used / videoSeconds, used * 1000 / Double(frames.count)) + (role.isEmpty ? "" : " [\(role)]"))
    }
}
