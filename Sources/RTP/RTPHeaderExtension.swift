/// The RTP header extension block (RFC 3550 section 5.3.1): a 16-bit profile value and data that is a multiple of
/// four bytes. RFC 8285 defines two profiles holding a list of elements: the one-byte form (profile `0xBEDE`) and
/// the two-byte form (profile `0x100X`, with four application bits in the low nibble).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |      defined by profile       |           length              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                        header extension                       |
/// |                             ....                              |
/// ```
///
/// The data is kept raw (already padded), so serializing a header never allocates; the element list is built or
/// decoded on demand.
public struct RTPHeaderExtension: Hashable, Sendable {
    /// The profile value ("defined by profile").
    public var profile: UInt16
    /// The extension data, a multiple of four bytes.
    public var data: [UInt8]

    /// The one-byte form's profile value (RFC 8285 section 4.2).
    public static let oneByteProfile: UInt16 = 0xBEDE
    /// The two-byte form's profile value with the application bits cleared (RFC 8285 section 4.3: `0x100` then
    /// four "appbits").
    public static let twoByteProfileBase: UInt16 = 0x1000
    /// The mask selecting the two-byte form's fixed bits (RFC 8285 section 4.3).
    static let twoByteProfileMask: UInt16 = 0xFFF0
    /// The one-byte form's reserved identifier that ends parsing (RFC 8285 section 4.2).
    static let oneByteReservedID: UInt8 = 15
    /// The IDs of the one-byte form (RFC 8285 section 4.2: 0 is padding, 15 reserved).
    public static let oneByteIDRange: ClosedRange<UInt8> = 1...14
    /// The largest element length in the one-byte form (RFC 8285 section 4.2: the L field holds length - 1).
    static let oneByteMaxLength = 16

    /// Creates an extension block from raw data; the data is zero-padded to a multiple of four bytes.
    /// - Parameters:
    ///   - profile: the profile value.
    ///   - data: the extension data.
    public init(profile: UInt16, data: [UInt8]) {
        self.profile = profile
        var padded = data
        while padded.count % 4 != 0 { padded.append(0) }
        self.data = padded
    }

    /// Whether this block uses the RFC 8285 one-byte form.
    public var isOneByteForm: Bool { profile == Self.oneByteProfile }

    /// Whether this block uses the RFC 8285 two-byte form.
    public var isTwoByteForm: Bool { profile & Self.twoByteProfileMask == Self.twoByteProfileBase }

    /// Builds a one-byte-form block (RFC 8285 section 4.2):
    ///
    /// ```
    ///  0
    ///  0 1 2 3 4 5 6 7
    /// +-+-+-+-+-+-+-+-+
    /// |  ID   |  len  |   len = data length - 1
    /// +-+-+-+-+-+-+-+-+
    /// ```
    /// - Parameter elements: IDs 1...14, data 1...16 bytes.
    /// - Throws: `RTPError.extensionElementOutOfRange` when an element does not fit the form.
    public static func oneByte(_ elements: [RTPHeaderExtensionElement]) throws(RTPError) -> RTPHeaderExtension {
        var data: [UInt8] = []
        for element in elements {
            guard (1...14).contains(element.id), (1...oneByteMaxLength).contains(element.data.count) else {
                throw .extensionElementOutOfRange(id: element.id, length: element.data.count)
            }
            data.append(element.id << 4 | UInt8(element.data.count - 1))
            data.append(contentsOf: element.data)
        }
        return RTPHeaderExtension(profile: oneByteProfile, data: data)
    }

    /// Builds a two-byte-form block (RFC 8285 section 4.3): each element is `ID (8 bits) | length (8 bits) | data`.
    /// - Parameters:
    ///   - elements: IDs 1...255, data 0...255 bytes.
    ///   - appBits: the four application bits carried in the profile's low nibble.
    /// - Throws: `RTPError.extensionElementOutOfRange` when an element does not fit the form.
    public static func twoByte(_ elements: [RTPHeaderExtensionElement], appBits: UInt8 = 0) throws(RTPError)
        -> RTPHeaderExtension
    {
        var data: [UInt8] = []
        for element in elements {
            guard element.id != 0, element.data.count <= 255 else {
                throw .extensionElementOutOfRange(id: element.id, length: element.data.count)
            }
            data.append(element.id)
            data.append(UInt8(element.data.count))
            data.append(contentsOf: element.data)
        }
        return RTPHeaderExtension(profile: twoByteProfileBase | UInt16(appBits & 0x0F), data: data)
    }

    /// The four application bits of a two-byte-form block (0 for other forms).
    public var appBits: UInt8 { isTwoByteForm ? UInt8(profile & 0x000F) : 0 }

    /// Decodes the RFC 8285 elements. Padding bytes (ID 0) are skipped; in the one-byte form ID 15 stops parsing.
    /// - Returns: the elements in order; empty for a profile that is not RFC 8285.
    /// - Throws: `RTPError.malformedExtensionElement` when an element's length runs past the block.
    public func elements() throws(RTPError) -> [RTPHeaderExtensionElement] {
        var result: [RTPHeaderExtensionElement] = []
        var i = 0
        if isOneByteForm {
            while i < data.count {
                let byte = data[i]
                if byte == 0 { i += 1; continue }
                let id = byte >> 4
                if id == Self.oneByteReservedID { break }
                let length = Int(byte & 0x0F) + 1
                guard i + 1 + length <= data.count else { throw .malformedExtensionElement(offset: i) }
                result.append(RTPHeaderExtensionElement(id: id, data: Array(data[(i + 1)..<(i + 1 + length)])))
                i += 1 + length
            }
        } else if isTwoByteForm {
            while i < data.count {
                let id = data[i]
                if id == 0 { i += 1; continue }
                guard i + 2 <= data.count else { throw .malformedExtensionElement(offset: i) }
                let length = Int(data[i + 1])
                guard i + 2 + length <= data.count else { throw .malformedExtensionElement(offset: i) }
                result.append(RTPHeaderExtensionElement(id: id, data: Array(data[(i + 2)..<(i + 2 + length)])))
                i += 2 + length
            }
        }
        return result
    }

    /// The number of bytes the block takes in a header: 4 plus the data.
    public var serializedSize: Int { 4 + data.count }
}
