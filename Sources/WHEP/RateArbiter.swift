/// The rates of an encoder shared by several viewers: each viewer's core wants a target and a ceiling (its own
/// `BitrateController`: the operator's bitrate capped by that viewer's REMB, TMMBR and loss estimate); the encoder
/// gets the lowest wish, so that it follows the weakest viewer.
///
/// Policy (documented in Docs/Architecture.md): one stream serves every viewer, so a viewer on a poor path lowers the
/// quality for all; the alternative (the strongest, letting the weak viewer lose packets) breaks that viewer's
/// picture for good. With simulcast (`serve --simulcast`) there is one arbiter per layer, over the viewers on that
/// layer, so a weak viewer moves to a lower layer instead of lowering everyone's. The result never exceeds the operator's rates (each wish is
/// already capped by them) and with no viewer the operator's rates apply. Pure: no clock, no I/O.
struct RateArbiter: Sendable, Equatable {
    /// A target and a ceiling, in bit/s.
    struct Rates: Sendable, Equatable {
        var target: Int
        var ceiling: Int
    }

    /// The operator's rates: the cap, and what applies with no viewer.
    private(set) var operatorRates: Rates
    /// Each viewer's latest wish.
    private var wishes: [UInt64: Rates] = [:]

    /// Creates an arbiter.
    /// - Parameter operatorRates: the operator's target and ceiling.
    init(operatorRates: Rates) {
        self.operatorRates = operatorRates
    }

    /// The rates the encoder must use now: the lowest target and the lowest ceiling over the viewers (the ceiling at
    /// least the target), at most the operator's.
    var applied: Rates {
        guard !wishes.isEmpty else { return operatorRates }
        let target = wishes.values.reduce(operatorRates.target) { min($0, $1.target) }
        let ceiling = wishes.values.reduce(operatorRates.ceiling) { min($0, $1.ceiling) }
        return Rates(target: target, ceiling: max(target, ceiling))
    }

    /// One viewer's wish, if it has one.
    func wish(of viewer: UInt64) -> Rates? { wishes[viewer] }

    /// How many viewers have a wish.
    var viewerCount: Int { wishes.count }

    /// Records a viewer's wish.
    /// - Parameters:
    ///   - rates: what the viewer's controller wants.
    ///   - viewer: the viewer.
    /// - Returns: the rates to apply now.
    mutating func set(_ rates: Rates, for viewer: UInt64) -> Rates {
        wishes[viewer] = rates
        return applied
    }

    /// Sets the operator's rates (the control endpoint's bitrate): a ceiling no viewer's wish can raise the encoder
    /// above, and what applies with no viewer.
    /// - Parameter rates: the operator's target and ceiling.
    /// - Returns: the rates to apply now.
    mutating func setOperatorRates(_ rates: Rates) -> Rates {
        operatorRates = rates
        return applied
    }

    /// Forgets a viewer (it left).
    /// - Parameter viewer: the viewer.
    /// - Returns: the rates to apply now.
    mutating func remove(_ viewer: UInt64) -> Rates {
        wishes[viewer] = nil
        return applied
    }
}
