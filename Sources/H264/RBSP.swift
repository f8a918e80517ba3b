/// A raw byte sequence payload (H.264 7.3.1, 7.4.1): the payload of a NAL unit with its
/// `emulation_prevention_three_byte`s removed, plus where they were, so errors can name bytes of the original NAL unit.
public struct RBSP: Hashable, Sendable {
    /// `emulation_prevention_three_byte` (H.264 7.4.1): written after `00 00` when the next byte is 0...3.
    public static let emulationPreventionByte: UInt8 = 0x03

    /// The payload bytes, emulation prevention removed.
    public var bytes: [UInt8]
    /// Offsets, in the escaped input, of the removed emulation-prevention bytes (ascending).
    public var removedOffsets: [Int]

    /// Removes emulation prevention from escaped bytes (a NAL unit payload, or a whole NAL unit).
    ///
    /// Every `03` that follows `00 00` is dropped, as a decoder does (H.264 7.3.1); the zero count restarts after it.
    /// - Parameter escaped: the bytes as they appear in the NAL unit.
    public init<S: Collection>(unescaping escaped: S) where S.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(escaped.count)
        var removed: [Int] = []
        var zeros = 0
        var index = 0
        for byte in escaped {
            if zeros >= 2 && byte == RBSP.emulationPreventionByte {
                removed.append(index)
                zeros = 0
            } else {
                out.append(byte)
                zeros = byte == 0 ? zeros + 1 : 0
            }
            index += 1
        }
        self.bytes = out
        self.removedOffsets = removed
    }

    /// Removes emulation prevention and returns the payload bytes only.
    /// - Parameter escaped: the bytes as they appear in the NAL unit.
    /// - Returns: the RBSP bytes.
    public static func removingEmulationPrevention<S: Collection>(_ escaped: S) -> [UInt8] where S.Element == UInt8 {
        RBSP(unescaping: escaped).bytes
    }

    /// Inserts emulation prevention so that the payload can be written into a NAL unit (H.264 7.4.1): an `03` after
    /// every `00 00` followed by a byte 0...3, and after a final `00 00` (a `cabac_zero_word` ending the payload).
    /// - Parameter rbsp: the payload bytes.
    /// - Returns: the escaped bytes.
    public static func addingEmulationPrevention<S: Collection>(_ rbsp: S) -> [UInt8] where S.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(rbsp.count + rbsp.count / 64 + 1)
        var zeros = 0
        for byte in rbsp {
            if zeros >= 2 && byte <= 3 {
                out.append(emulationPreventionByte)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        if zeros >= 2 {
            out.append(emulationPreventionByte)
        }
        return out
    }

    /// Maps an offset in ``bytes`` back to the escaped input.
    /// - Parameter rbspOffset: a byte offset in the payload.
    /// - Returns: the offset of the same byte in the escaped input.
    public func escapedOffset(forRBSPOffset rbspOffset: Int) -> Int {
        var offset = rbspOffset
        for removed in removedOffsets {
            if removed <= offset { offset += 1 } else { break }
        }
        return offset
    }
}
