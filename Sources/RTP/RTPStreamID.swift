/// The RTP stream id of a simulcast encoding (RFC 8851's `rid-id`, carried by the `rtp-stream-id` and
/// `repaired-rtp-stream-id` header extensions, RFC 8852): what `a=rid` lines and our configurations accept.
public enum RTPStreamID {
    /// The longest id accepted: what one element of the one-byte header form carries (RFC 8285 section 4.2).
    public static let maximumLength = 16

    /// Whether `rid` is 1 to `maximumLength` letters, digits, `-` or `_`.
    /// - Parameter rid: the id.
    /// - Returns: whether it is valid.
    public static func isValid(_ rid: some StringProtocol) -> Bool {
        (1...maximumLength).contains(rid.utf8.count) && rid.utf8.allSatisfy {
            switch $0 {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }
    }
}
