import Testing
@testable import Codec

@Suite struct CodecModuleTests {
    @Test func moduleBuilds() { #expect(Bool(true)) }
}
