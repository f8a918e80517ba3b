import Testing
@testable import Sender

@Suite struct BitrateControllerTests {
    func make() throws -> BitrateController {
        try BitrateController(operatorBitrate: 1_500_000, minimumBitrate: 100_000, maximumBitrate: 9_333_333)
    }

    @Test func operatorBitrateIsTheTargetAndCeilingIsOneAndAHalf() throws {
        let c = try make()
        #expect(c.effectiveTarget == 1_500_000)
        #expect(c.effectiveCeiling == 2_250_000)
    }

    @Test func peerLimitsCapTheOperatorBitrate() throws {
        var c = try make()
        c.receivedREMB(800_000)
        #expect(c.effectiveTarget == 800_000)
        c.receivedTMMBR(600_000)
        #expect(c.effectiveTarget == 600_000)
        c.receivedTMMBR(5_000_000)
        #expect(c.effectiveTarget == 800_000)
        c.receivedREMB(3_000_000)
        #expect(c.effectiveTarget == 1_500_000)
        try c.setOperatorBitrate(2_000_000)
        #expect(c.effectiveTarget == 2_000_000)
    }

    @Test func targetIsClampedToTheMinimum() throws {
        var c = try make()
        c.receivedREMB(10_000)
        #expect(c.effectiveTarget == 100_000)
        c.receivedREMB(0)
        #expect(c.effectiveTarget == 100_000)
    }

    @Test(arguments: [
        (0, BitrateController.Error.notPositive(0)),
        (-5, BitrateController.Error.notPositive(-5)),
        (20_000_000, BitrateController.Error.aboveLimit(20_000_000, limit: 9_333_333)),
    ])
    func badOperatorBitrateIsAnErrorAndChangesNothing(value: Int, error: BitrateController.Error) throws {
        var c = try make()
        #expect(throws: error) { try c.setOperatorBitrate(value) }
        #expect(c.effectiveTarget == 1_500_000)
    }
}
