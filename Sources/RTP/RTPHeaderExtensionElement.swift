/// One RFC 8285 header extension element: a local identifier and its data.
public struct RTPHeaderExtensionElement: Hashable, Sendable {
    /// The local identifier (1...14 in the one-byte form, 1...255 in the two-byte form).
    public var id: UInt8
    /// The element data (1...16 bytes in the one-byte form, 0...255 in the two-byte form).
    public var data: [UInt8]

    /// Creates an element.
    /// - Parameters:
    ///   - id: the local identifier.
    ///   - data: the data.
    public init(id: UInt8, data: [UInt8]) {
        self.id = id
        self.data = data
    }
}
