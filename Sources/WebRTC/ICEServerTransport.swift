/// The transport a `turn:`/`turns:` URI asks for with `?transport=` (RFC 7065 section 3.1).
public enum ICEServerTransport: String, Hashable, Sendable, CaseIterable {
    /// UDP (DTLS for `turns:`).
    case udp
    /// TCP (TLS for `turns:`).
    case tcp
}
