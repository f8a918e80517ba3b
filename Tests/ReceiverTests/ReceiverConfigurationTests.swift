import Testing
@testable import Receiver

@Suite struct ReceiverConfigurationTests {
    /// NACK copies: 1-3, two by default (a lost NACK costs a whole repeat interval).
    @Test(arguments: [(-1, false), (0, false), (1, true), (2, true), (3, true), (4, false), (Int.max, false)])
    func nackCopiesAreBounded(copies: Int, valid: Bool) {
        var configuration = ReceiverConfiguration(listenHost: "127.0.0.1", listenPort: 0)
        #expect(configuration.nackCopies == 2)
        configuration.nackCopies = copies
        if valid {
            #expect(throws: Never.self) { try configuration.validate() }
        } else {
            #expect(throws: ReceiverError.invalidConfiguration("NACK copies must be 1-3, got \(copies)")) {
                try configuration.validate()
            }
        }
    }
}
