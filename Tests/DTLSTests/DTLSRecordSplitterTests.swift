import Testing
@testable import DTLS

@Suite struct DTLSRecordSplitterTests {
    /// A record of `payload` bytes: content type 22, DTLS 1.2, epoch 0, sequence `sequence`.
    static func record(_ payload: Int, sequence: UInt8) -> [UInt8] {
        [22, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, sequence, UInt8(payload >> 8), UInt8(payload & 0xFF)]
            + Array(repeating: sequence, count: payload)
    }

    @Test func packsWholeRecordsUpToTheMTU() {
        let a = Self.record(100, sequence: 1)  // 113 bytes
        let b = Self.record(50, sequence: 2)  // 63
        let c = Self.record(200, sequence: 3)  // 213
        let datagrams = DTLSRecordSplitter.datagrams(from: a + b + c, mtu: 200)
        #expect(datagrams == [a + b, c])  // c is larger than the MTU: it travels alone
        #expect(DTLSRecordSplitter.datagrams(from: a + b + c, mtu: 1200) == [a + b + c])
        #expect(DTLSRecordSplitter.datagrams(from: [], mtu: 1200).isEmpty)
    }

    @Test func keepsTruncatedTailWithoutTrapping() {
        let a = Self.record(10, sequence: 1)
        let datagrams = DTLSRecordSplitter.datagrams(from: a + [22, 0xfe], mtu: 1200)
        #expect(datagrams == [a + [22, 0xfe]])
        let lying = [22, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 1, 2] as [UInt8]
        #expect(DTLSRecordSplitter.datagrams(from: lying, mtu: 1200) == [lying])
    }
}
