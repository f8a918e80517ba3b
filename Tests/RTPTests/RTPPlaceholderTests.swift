import Testing
@testable import RTP

@Suite struct RTPModuleTests {
    @Test func moduleBuilds() { #expect(Bool(true)) }
}
