// Command-line helpers the benchmark tools share: a bad value is a usage error naming the tool, never a trap.
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Prints `message` to standard error, after the tool's name, and exits with status 2 (a usage error, not a trap).
public func usageError(_ message: String) -> Never {
    let tool = URL(fileURLWithPath: CommandLine.arguments.first ?? "bench").lastPathComponent
    FileHandle.standardError.write(Data("\(tool): \(message)\n".utf8))
    exit(2)
}

/// The integer value following `option` in `arguments`, which must lie in `range`; anything else is a usage error.
public func integerValue(of option: String, in range: ClosedRange<Int>, from arguments: inout ArraySlice<String>) -> Int {
    guard let text = arguments.popFirst() else { usageError("\(option) needs a value") }
    guard let value = Int(text), range.contains(value) else {
        usageError("\(option) \(text): expected an integer in \(range.lowerBound)...\(range.upperBound)")
    }
    return value
}
