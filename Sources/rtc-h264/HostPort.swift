import ArgumentParser

/// A `HOST:PORT` argument (`[::1]:5004` for IPv6; a bare `PORT` means 127.0.0.1).
struct HostPort: ExpressibleByArgument, Sendable, CustomStringConvertible {
    var host: String
    var port: Int

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    init?(argument: String) {
        // A bare port means loopback: control endpoints and local peers bind to loopback unless told otherwise.
        if let port = Int(argument), (0...65535).contains(port) {
            self.host = "127.0.0.1"
            self.port = port
            return
        }
        guard let colon = argument.lastIndex(of: ":") else { return nil }
        var host = String(argument[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = Int(argument[argument.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        self.host = host
        self.port = port
    }

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
