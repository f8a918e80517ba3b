import Synchronization

/// Counts one endpoint's open connections, in all and per client address, for every event loop at once: a connection
/// is admitted (and counted until `release`) or refused with the reason.
package final class HTTPConnectionLimiter: Sendable {
    /// Why a connection was refused.
    package enum Refusal: Sendable, Equatable {
        /// `maximumConnections` are open.
        case total(Int)
        /// `maximumPerAddress` are open from this address.
        case perAddress(String, Int)

        /// The sentence for the client.
        package var message: String {
            switch self {
            case .total(let limit):
                "too many connections: the server holds \(limit) at once; try again later"
            case .perAddress(let address, let limit):
                "too many connections from \(address.prefix(64)): at most \(limit) at once; try again later"
            }
        }
    }

    /// The most connections at once, in all.
    package let maximumConnections: Int
    /// The most connections at once from one address.
    package let maximumPerAddress: Int
    private let counts = Mutex<(total: Int, perAddress: [String: Int])>((0, [:]))

    /// Creates a limiter.
    /// - Parameters:
    ///   - maximumConnections: connections at once, in all (at least 1).
    ///   - maximumPerAddress: connections at once from one address (at least 1).
    package init(maximumConnections: Int, maximumPerAddress: Int) {
        self.maximumConnections = max(1, maximumConnections)
        self.maximumPerAddress = max(1, maximumPerAddress)
    }

    /// Counts a new connection from `address`, or refuses it.
    /// - Parameter address: the client's address (its IP: every port of one host counts together).
    /// - Returns: nil when admitted (call `release(_:)` once when it closes), else why not.
    package func admit(_ address: String) -> Refusal? {
        counts.withLock { counts in
            let fromAddress = counts.perAddress[address, default: 0]
            if counts.total >= maximumConnections { return .total(maximumConnections) }
            if fromAddress >= maximumPerAddress { return .perAddress(address, maximumPerAddress) }
            counts.total += 1
            counts.perAddress[address] = fromAddress + 1
            return nil
        }
    }

    /// Uncounts a connection `admit(_:)` admitted.
    /// - Parameter address: the address it was admitted with.
    package func release(_ address: String) {
        counts.withLock { counts in
            guard let fromAddress = counts.perAddress[address] else { return }
            counts.total -= 1
            counts.perAddress[address] = fromAddress > 1 ? fromAddress - 1 : nil
        }
    }

    /// The connections open now, in all.
    package var openConnections: Int { counts.withLock { $0.total } }
}
