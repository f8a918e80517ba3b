import Testing
@testable import Video

@Suite struct VideoModuleTests {
    @Test func moduleBuilds() { #expect(Bool(true)) }
}
