import Testing
@testable import WHEP

/// The shared encoder's rates: the weakest viewer's wish, never above the operator's, the operator's with no viewer.
@Suite struct RateArbiterTests {
    typealias Rates = RateArbiter.Rates

    @Test func theEncoderFollowsTheWeakestViewerAndComesBackWhenItLeaves() {
        var arbiter = RateArbiter(operatorRates: Rates(target: 1_500_000, ceiling: 2_250_000))
        #expect(arbiter.applied == Rates(target: 1_500_000, ceiling: 2_250_000))
        #expect(arbiter.set(Rates(target: 1_500_000, ceiling: 2_250_000), for: 1) == Rates(target: 1_500_000, ceiling: 2_250_000))
        #expect(arbiter.set(Rates(target: 400_000, ceiling: 600_000), for: 2) == Rates(target: 400_000, ceiling: 600_000))
        #expect(arbiter.set(Rates(target: 900_000, ceiling: 1_350_000), for: 3) == Rates(target: 400_000, ceiling: 600_000))
        #expect(arbiter.viewerCount == 3)
        #expect(arbiter.remove(2) == Rates(target: 900_000, ceiling: 1_350_000))
        #expect(arbiter.remove(3) == Rates(target: 1_500_000, ceiling: 2_250_000))
        #expect(arbiter.remove(1) == Rates(target: 1_500_000, ceiling: 2_250_000))
        #expect(arbiter.remove(42) == Rates(target: 1_500_000, ceiling: 2_250_000))  // unknown: nothing changes
    }

    @Test func aWishAboveTheOperatorsIsCappedAndTheCeilingNeverFallsBelowTheTarget() {
        var arbiter = RateArbiter(operatorRates: Rates(target: 1_000_000, ceiling: 1_500_000))
        #expect(arbiter.set(Rates(target: 5_000_000, ceiling: 7_000_000), for: 1) == Rates(target: 1_000_000, ceiling: 1_500_000))
        // One viewer limits the target, another the ceiling: the ceiling stays at least the target.
        #expect(arbiter.set(Rates(target: 800_000, ceiling: 1_200_000), for: 1) == Rates(target: 800_000, ceiling: 1_200_000))
        #expect(arbiter.set(Rates(target: 900_000, ceiling: 700_000), for: 2) == Rates(target: 800_000, ceiling: 800_000))
    }

    @Test func theOperatorsRatesAreACeilingViewersCannotRaiseAndRaisingThemLetsTheEncoderRise() {
        var arbiter = RateArbiter(operatorRates: Rates(target: 1_000_000, ceiling: 1_500_000))
        // Both viewers' estimates are higher than what the operator now allows.
        _ = arbiter.set(Rates(target: 3_000_000, ceiling: 4_500_000), for: 1)
        _ = arbiter.set(Rates(target: 2_000_000, ceiling: 3_000_000), for: 2)
        #expect(arbiter.setOperatorRates(Rates(target: 400_000, ceiling: 600_000)) == Rates(target: 400_000, ceiling: 600_000))
        // A viewer's wish coming in later does not lift it either.
        #expect(arbiter.set(Rates(target: 5_000_000, ceiling: 7_500_000), for: 1) == Rates(target: 400_000, ceiling: 600_000))
        // Raised again: the encoder rises to the weakest viewer's wish, which is now below the operator's.
        #expect(arbiter.setOperatorRates(Rates(target: 2_500_000, ceiling: 3_750_000)) == Rates(target: 2_000_000, ceiling: 3_000_000))
        #expect(arbiter.operatorRates == Rates(target: 2_500_000, ceiling: 3_750_000))
        // With no viewer left, the operator's rates apply as they are.
        _ = arbiter.remove(1)
        #expect(arbiter.remove(2) == Rates(target: 2_500_000, ceiling: 3_750_000))
    }
}
