import Testing
@testable import STUN

@Suite struct STUNMessageTests {
    static let id = STUNTransactionID(high: 0x0102_0304, low: 0x0506_0708_090a_0b0c)

    @Test func messageTypeInterleavesMethodAndClass() {
        #expect(STUNMessageType.bindingRequest.rawValue == 0x0001)
        #expect(STUNMessageType.bindingIndication.rawValue == 0x0011)
        #expect(STUNMessageType.bindingSuccess.rawValue == 0x0101)
        #expect(STUNMessageType.bindingError.rawValue == 0x0111)
        // RFC 8656 section 17: Allocate request 0x0003, its success 0x0103, ChannelBind error 0x0119, Data indication 0x0017.
        #expect(STUNMessageType(method: STUNMessageType.allocateMethod, messageClass: .request).rawValue == 0x0003)
        #expect(STUNMessageType(method: STUNMessageType.allocateMethod, messageClass: .successResponse).rawValue == 0x0103)
        #expect(STUNMessageType(method: STUNMessageType.channelBindMethod, messageClass: .errorResponse).rawValue == 0x0119)
        #expect(STUNMessageType(method: STUNMessageType.dataMethod, messageClass: .indication).rawValue == 0x0017)
        // Every 14-bit value survives decode -> encode.
        for raw in stride(from: UInt16(0), to: 0x4000, by: 7) {
            #expect(STUNMessageType(rawValue: raw).rawValue == raw)
        }
    }

    @Test func roundTripsEveryAttribute() throws {
        let message = STUNMessage(type: .bindingError, transactionID: Self.id, attributes: [
            .mappedAddress(TransportAddress(ipString: "10.0.0.1", port: 9)!),
            .xorMappedAddress(TransportAddress(ipString: "::1", port: 65535)!),
            .username("a:b"), .errorCode(code: 487, reason: "Role Conflict"), .priority(1),
            .useCandidate, .iceControlling(tieBreaker: .max), .software("rtc-h264"), .realm("r"), .nonce("n"),
            .unknownAttributes([STUNAttributeType(rawValue: 0x7777)]),
            .channelNumber(0x4001), .lifetime(600), .xorPeerAddress(TransportAddress(ipString: "192.0.2.7", port: 4000)!),
            .data([9, 8, 7, 6, 5]), .xorRelayedAddress(TransportAddress(ipString: "2001:db8::9", port: 50_000)!),
            .requestedTransport(17),
            .other(type: STUNAttributeType(rawValue: 0x8123), value: [1, 2, 3]),
        ])
        let bytes = try message.serialized(integrityKey: [1, 2, 3])
        let parsed = try STUNMessage(parsing: bytes)
        #expect(Array(parsed.attributes.dropLast(2)) == message.attributes)
        #expect(parsed.errorCode?.code == 487)
        #expect(parsed.hasValidIntegrity(key: [1, 2, 3]))
        #expect(parsed.unknownComprehensionRequired.isEmpty)
    }

    @Test func keepsUnknownComprehensionRequiredAttributes() throws {
        let message = STUNMessage(type: .bindingRequest, transactionID: Self.id, attributes: [
            .other(type: STUNAttributeType(rawValue: 0x0042), value: []),
        ])
        let parsed = try STUNMessage(parsing: try message.serialized())
        #expect(parsed.unknownComprehensionRequired == [STUNAttributeType(rawValue: 0x0042)])
    }

    @Test func attributesAfterIntegrityAreIgnored() throws {
        var bytes = try STUNMessage(type: .bindingRequest, transactionID: Self.id, attributes: [.username("u")])
            .serialized(integrityKey: [9], fingerprint: false)
        // Append PRIORITY after MESSAGE-INTEGRITY and fix the length: MI still verifies, PRIORITY is dropped.
        bytes += [0x00, 0x24, 0x00, 0x04, 0, 0, 0, 1]
        bytes[3] = UInt8(bytes.count - 20)
        let parsed = try STUNMessage(parsing: bytes)
        #expect(parsed.priority == nil)
        #expect(parsed.hasValidIntegrity(key: [9]))
    }

    @Test func builtMessagesHaveNoReceivedIntegrity() {
        #expect(!STUNMessage(type: .bindingRequest, transactionID: Self.id).hasValidIntegrity(key: []))
    }

    @Test func looksLikeSTUN() {
        #expect(STUNMessage.looksLikeSTUN(RFC5769VectorTests.request))
        #expect(!STUNMessage.looksLikeSTUN(RFC5769VectorTests.request.prefix(19)))
        var rtp = RFC5769VectorTests.request
        rtp[0] = 0x80
        #expect(!STUNMessage.looksLikeSTUN(rtp))
    }

    /// Bad input: each table row names the error it must give, and none traps.
    @Test func rejectsBadInput() {
        let valid = RFC5769VectorTests.request
        func mutated(_ change: (inout [UInt8]) -> Void) -> [UInt8] {
            var bytes = valid
            change(&bytes)
            return bytes
        }
        let cases: [(String, [UInt8], STUNError)] = [
            ("empty", [], .truncated(needed: 20, available: 0)),
            ("short header", Array(valid.prefix(19)), .truncated(needed: 20, available: 19)),
            ("leading bits", mutated { $0[0] = 0x40 }, .notSTUN),
            ("cookie", mutated { $0[4] = 0 }, .badMagicCookie(0x0012_a442)),
            ("misaligned", mutated { $0[3] = 0x57 }, .misalignedLength(0x57)),
            ("truncated body", Array(valid.prefix(100)), .truncated(needed: 108, available: 100)),
            ("trailing", valid + [0, 0, 0, 0], .trailingBytes(4)),
            ("fingerprint", mutated { $0[107] ^= 1 }, .fingerprintMismatch(expected: 0xe57a_3bcf, received: 0xe57a_3bce)),
            ("attribute overrun", mutated { $0[22] = 0x01 }, .attributeOverrun(type: .software, length: 0x110, remaining: 84)),
            ("priority length", mutated { $0[43] = 0x08 },
             .malformedAttribute(type: .priority, reason: "length 8, expected 4")),
            ("last attribute overrun", mutated { $0[103] = 0x08 }, .attributeOverrun(type: .fingerprint, length: 8, remaining: 4)),
        ]
        for (name, bytes, expected) in cases {
            #expect(throws: expected, "\(name)") { try STUNMessage(parsing: bytes) }
        }
    }

    @Test func rejectsMalformedAttributes() throws {
        func message(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
            var bytes: [UInt8] = [0x00, 0x01, 0x00, 0x00, 0x21, 0x12, 0xa4, 0x42] + Self.id.bytes
            bytes += [UInt8(type >> 8), UInt8(type & 0xFF), 0, UInt8(value.count)] + value
            bytes += repeatElement(0, count: (4 - value.count % 4) % 4)
            bytes[3] = UInt8(bytes.count - 20)
            return bytes
        }
        let cases: [(UInt16, [UInt8], STUNAttributeType)] = [
            (0x0024, [0, 0, 1], .priority),
            (0x0025, [0], .useCandidate),
            (0x802A, [1, 2, 3, 4], .iceControlling),
            (0x0008, [1, 2, 3], .messageIntegrity),
            (0x0020, [0, 3, 0, 0, 1, 2, 3, 4], .xorMappedAddress),
            (0x0020, [0, 1, 0, 0, 1, 2, 3], .xorMappedAddress),
            (0x0009, [0, 0, 2, 0], .errorCode),
            (0x0009, [0, 0, 4, 100], .errorCode),
            (0x0006, [0xff, 0xfe], .username),
            (0x000A, [0, 1, 2], .unknownAttributes),
            (0x000C, [0x40, 0x00], .channelNumber),
            (0x000D, [0, 0, 2, 88, 0], .lifetime),
            (0x0012, [0, 1, 0, 0, 1, 2], .xorPeerAddress),
            (0x0016, [0, 9, 0, 0, 1, 2, 3, 4], .xorRelayedAddress),
            (0x0019, [17], .requestedTransport),
        ]
        for (type, value, expectedType) in cases {
            do {
                _ = try STUNMessage(parsing: message(type, value))
                Issue.record("accepted malformed \(expectedType)")
            } catch {
                guard case .malformedAttribute(let reportedType, _) = error else {
                    Issue.record("wrong error \(error) for \(expectedType)")
                    continue
                }
                #expect(reportedType == expectedType)
            }
        }
        let fingerprintInMiddle = message(0x8028, [0, 0, 0, 0]) + [0x00, 0x25, 0x00, 0x00]
        var patched = fingerprintInMiddle
        patched[3] = UInt8(patched.count - 20)
        #expect(throws: STUNError.fingerprintNotLast) { try STUNMessage(parsing: patched) }
    }

    @Test func refusesToWriteOutOfRangeValues() {
        let tooLong = STUNMessage(type: .bindingRequest, transactionID: Self.id,
                                  attributes: [.username(String(repeating: "x", count: 514))])
        #expect(throws: STUNError.self) { try tooLong.serialized() }
        let badCode = STUNMessage(type: .bindingError, transactionID: Self.id, attributes: [.errorCode(code: 200, reason: "")])
        #expect(throws: STUNError.valueOutOfRange(type: .errorCode, reason: "code 200")) { try badCode.serialized() }
    }

    @Test func addresses() {
        #expect(IPAddress("192.0.2.1") == .v4(0xC000_0201))
        #expect(IPAddress("not an address") == nil)
        #expect(IPAddress("::ffff:1.2.3.4")?.isIPv6 == true)
        #expect(TransportAddress(ipString: "192.0.2.1", port: 80)?.description == "192.0.2.1:80")
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
        #expect(STUNTransactionID(bytes: [1]) == nil)
        #expect(Self.id.description == "0102030405060708090a0b0c")
    }

    @Test func crc32MatchesKnownValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }
}
