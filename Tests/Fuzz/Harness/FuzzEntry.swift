/// The libFuzzer entry point (`LLVMFuzzerTestOneInput`): one binary serves every target, chosen once per process by
/// the `FUZZ_TARGET` environment variable (see `FuzzTarget`). Built only by `Tests/Fuzz/run.sh` with
/// `swiftc -sanitize=fuzzer,address`; SwiftPM never sees this directory.
#if canImport(Glibc)
import Glibc
#endif

/// The target this process runs, read once from `FUZZ_TARGET` (an immutable global, so safe to share).
let selectedTarget: FuzzTarget = {
    guard let name = getenv("FUZZ_TARGET").map({ String(cString: $0) }), let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        let message = Array("set FUZZ_TARGET to one of: \(names)\n".utf8)
        _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(2)
    }
    return target
}()

/// Called by libFuzzer for every input; must not trap for any bytes (a trap is the bug being looked for).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selectedTarget.run(bytes)
    return 0
}
