import SDP
import Testing

/// Issue 25, items 1 and 2 in the SDES SDP: `a=extmap` for `abs-capture-time` and `playout-delay` written and read;
/// one ID given to two extensions is a clear error.
@Suite struct HeaderExtensionSDPTests {
    static let capture = SessionDescription.absoluteCaptureTimeURI
    static let delay = SessionDescription.playoutDelayURI
    static let transport = SessionDescription.transportWideCCURI
    static let fmtp = "a=fmtp:96 packetization-mode=1;profile-level-id=42e01f"

    @Test func bothRoundTrip() throws {
        let parsed = try SessionDescription(parsing: SessionDescriptionParsingTests.sdp(
            Self.fmtp, "a=extmap:3 \(Self.transport)", "a=extmap:4/sendonly \(Self.capture)", "a=extmap:5 \(Self.delay)",
            "a=extmap:6 urn:ietf:params:rtp-hdrext:toffset"))
        #expect(parsed.transportWideCCExtensionID == 3)
        #expect(parsed.absoluteCaptureTimeExtensionID == 4)
        #expect(parsed.playoutDelayExtensionID == 5)
        let text = parsed.serialize()
        #expect(text.contains(
            "a=extmap:3 \(Self.transport)\r\na=extmap:4 \(Self.capture)\r\na=extmap:5 \(Self.delay)\r\n"))
        let again = try SessionDescription(parsing: text)
        #expect(again.absoluteCaptureTimeExtensionID == 4 && again.playoutDelayExtensionID == 5)
        let none = try SessionDescription(parsing: SessionDescriptionParsingTests.sdp(Self.fmtp))
        #expect(none.absoluteCaptureTimeExtensionID == nil && none.playoutDelayExtensionID == nil)
        #expect(!none.serialize().contains("extmap"))
    }

    /// The dependency descriptor (issue 23): written and read like the others.
    @Test func theDependencyDescriptorRoundTrips() throws {
        let uri = SessionDescription.dependencyDescriptorURI
        let parsed = try SessionDescription(parsing: SessionDescriptionParsingTests.sdp(Self.fmtp, "a=extmap:6 \(uri)"))
        #expect(parsed.dependencyDescriptorExtensionID == 6)
        #expect(parsed.serialize().contains("a=extmap:6 \(uri)\r\n"))
        #expect(try SessionDescription(parsing: parsed.serialize()).dependencyDescriptorExtensionID == 6)
        #expect(throws: SessionDescriptionError.self) {
            try SessionDescription(parsing: SessionDescriptionParsingTests.sdp(
                Self.fmtp, "a=extmap:6 \(uri)", "a=extmap:6 \(Self.delay)"))
        }
    }

    static let bad: [([String], String)] = [
        (["a=extmap:4 \(capture)", "a=extmap:4 \(delay)"], "a=extmap ID 4 names two extensions"),
        (["a=extmap:3 \(transport)", "a=extmap:3 \(capture)"], "a=extmap ID 3 names two extensions"),
        (["a=extmap:7 urn:ietf:params:rtp-hdrext:toffset", "a=extmap:7 \(delay)"], "a=extmap ID 7 names two extensions"),
        (["a=extmap:0 \(capture)"], "a=extmap ID must be 1-255"),
        (["a=extmap:256 \(delay)"], "a=extmap ID must be 1-255"),
        (["a=extmap:x \(delay)"], "a=extmap ID must be 1-255"),
    ]

    @Test(arguments: bad)
    func aSharedOrBadIDIsAClearError(lines: [String], message: String) {
        do {
            let text = SessionDescriptionParsingTests.sdp(Self.fmtp) + lines.map { $0 + "\r\n" }.joined()
            _ = try SessionDescription(parsing: text)
            Issue.record("\(lines) parsed")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
    }

    /// The same URI twice (a peer offering it per direction) is not a collision: the first ID is used.
    @Test func theSameURITwiceUsesTheFirst() throws {
        let parsed = try SessionDescription(parsing: SessionDescriptionParsingTests.sdp(
            Self.fmtp, "a=extmap:4 \(Self.capture)", "a=extmap:9 \(Self.capture)"))
        #expect(parsed.absoluteCaptureTimeExtensionID == 4)
    }
}
