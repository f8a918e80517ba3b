import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process a test runs (the `rtc-h264` binary, curl, the impairment relay): its standard output and error
/// read to their end, its exit awaited, without holding a thread of Swift's cooperative pool.
///
/// Why: swift-testing runs every suite of the package in one process, as tasks on the cooperative pool, which has
/// one thread per core (two here). `Process.waitUntilExit()` or a blocking `readDataToEndOfFile()` in a test holds one
/// of those threads for as long as the child runs, and two such tests stalled every async loopback suite beside them
/// past its deadlines. Here the exit arrives through `terminationHandler`, each pipe is read to its end on a thread
/// of its own (the blocking read is never on the pool; reading both at once also keeps a child that fills one pipe
/// from stalling on it), and `finished()` suspends until all three are in.
public final class ChildProcess: Sendable {
    /// What a finished child left.
    public struct Output: Sendable {
        /// The exit status, or the signal that ended it (see `reason`).
        public var status: Int32
        /// Whether it exited or was killed by a signal.
        public var reason: Process.TerminationReason
        /// Everything it wrote to standard output.
        public var standardOutput: Data
        /// Everything it wrote to standard error, as text.
        public var stderr: String

        /// Standard output as text.
        public var stdout: String { String(decoding: standardOutput, as: UTF8.self) }
    }

    /// Where the three results meet; the continuations wait here until all are in.
    private final class Collector: @unchecked Sendable {
        private let lock = NSLock()
        private var standardOutput: Data?
        private var standardError: Data?
        private var termination: (status: Int32, reason: Process.TerminationReason)?
        private var waiters: [CheckedContinuation<Output, Never>] = []

        func setStandardOutput(_ data: Data) { complete { $0.standardOutput = data } }
        func setStandardError(_ data: Data) { complete { $0.standardError = data } }
        func setTermination(_ status: Int32, _ reason: Process.TerminationReason) {
            complete { $0.termination = (status, reason) }
        }

        /// Resumes `continuation` once everything is in (at once if it already is).
        func wait(_ continuation: CheckedContinuation<Output, Never>) {
            let output: Output? = lock.withLock {
                guard let output = finishedOutput() else {
                    waiters.append(continuation)
                    return nil
                }
                return output
            }
            if let output { continuation.resume(returning: output) }
        }

        private func complete(_ change: (Collector) -> Void) {
            let (output, waiting): (Output?, [CheckedContinuation<Output, Never>]) = lock.withLock {
                change(self)
                guard let output = finishedOutput() else { return (nil, []) }
                defer { waiters = [] }
                return (output, waiters)
            }
            if let output { waiting.forEach { $0.resume(returning: output) } }
        }

        /// Under the lock.
        private func finishedOutput() -> Output? {
            guard let standardOutput, let standardError, let termination else { return nil }
            return Output(status: termination.status, reason: termination.reason, standardOutput: standardOutput,
                          stderr: String(decoding: standardError, as: UTF8.self))
        }
    }

    private let process: Process
    private let collector = Collector()

    /// Starts a process.
    /// - Parameters:
    ///   - executable: the program.
    ///   - arguments: its arguments.
    ///   - standardInput: bytes written to its standard input (then closed); nil gives it an empty one.
    /// - Throws: when the program cannot be started.
    public init(executable: URL, arguments: [String], standardInput: Data? = nil) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        let input = standardInput.map { _ in Pipe() }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input ?? FileHandle.nullDevice
        let collector = collector
        process.terminationHandler = { collector.setTermination($0.terminationStatus, $0.terminationReason) }
        try process.run()
        Self.onThreadOfItsOwn { collector.setStandardOutput(Self.readToEndAndClose(out.fileHandleForReading)) }
        Self.onThreadOfItsOwn { collector.setStandardError(Self.readToEndAndClose(err.fileHandleForReading)) }
        if let input, let standardInput {
            Self.onThreadOfItsOwn {
                // A child that exits without reading all of it makes the write fail with EPIPE: SIGPIPE is blocked
                // on this thread (where the kernel directs it), so that it cannot end the test process.
                var pipeSignal = sigset_t()
                sigemptyset(&pipeSignal)
                sigaddset(&pipeSignal, SIGPIPE)
                pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
                try? input.fileHandleForWriting.write(contentsOf: standardInput)
                try? input.fileHandleForWriting.close()
            }
        }
    }

    /// Starts `executable` and waits for it to finish.
    /// - Parameters:
    ///   - executable: the program.
    ///   - arguments: its arguments.
    ///   - standardInput: bytes written to its standard input; nil gives it an empty one.
    /// - Returns: its exit status and output.
    /// - Throws: when the program cannot be started.
    public static func run(
        _ executable: URL, _ arguments: [String], standardInput: Data? = nil
    ) async throws -> Output {
        try await ChildProcess(executable: executable, arguments: arguments, standardInput: standardInput).finished()
    }

    /// Whether the child is still running.
    public var isRunning: Bool { process.isRunning }

    /// Sends SIGINT (as Ctrl-C would).
    public func interrupt() {
        if process.isRunning { process.interrupt() }
    }

    /// Sends SIGTERM.
    public func terminate() {
        if process.isRunning { process.terminate() }
    }

    /// Sends SIGKILL: for a server that never exits on its own. A child started from a test inherits the signal mask
    /// of the thread that started it, where SIGTERM and SIGINT may be blocked (seen with Debian's turnserver).
    public func kill() {
        if process.isRunning { _ = Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// Suspends until the child has exited and both of its pipes are read to their end. A cancelled task (a test
    /// past its time limit) terminates the child rather than waiting for it.
    /// - Returns: its exit status and output.
    public func finished() async -> Output {
        await withTaskCancellationHandler {
            await withCheckedContinuation { collector.wait($0) }
        } onCancel: {
            terminate()
        }
    }

    /// Reads a pipe to its end and closes it at once. Left to Foundation, the read ends stayed open (398 of them after
    /// one run of the suites), and Foundation learns of each child's exit through a socket it watches with `select`,
    /// which cannot watch a descriptor numbered 1024 or above.
    private static func readToEndAndClose(_ handle: FileHandle) -> Data {
        let data = handle.readDataToEndOfFile()
        try? handle.close()
        return data
    }

    private static func onThreadOfItsOwn(_ work: @escaping @Sendable () -> Void) {
        Thread { work() }.start()
    }
}
