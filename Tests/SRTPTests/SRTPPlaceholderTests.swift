import Testing
@testable import SRTP

@Suite struct SRTPModuleTests {
    @Test func moduleBuilds() { #expect(Bool(true)) }
}
