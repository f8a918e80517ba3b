/// A failed OpenH264 call, with the raw status kept: a `CM_RETURN` value for encoder calls, a `DECODING_STATE` bit
/// set for decoder calls. Every OpenH264 status goes through `OpenH264Error.check`.
public struct OpenH264Error: Error, Equatable, Sendable, CustomStringConvertible {
    /// The OpenH264 function that failed, e.g. "EncodeFrame".
    public var operation: String
    /// The raw status it returned.
    public var status: Int

    /// Creates an error.
    /// - Parameters:
    ///   - operation: the function name.
    ///   - status: the raw status.
    public init(operation: String, status: Int) {
        self.operation = operation
        self.status = status
    }

    /// Names of `CM_RETURN` values (codec_def.h).
    static let encoderStatusNames = [
        0: "cmResultSuccess", 1: "cmInitParaError", 2: "cmUnknownReason", 3: "cmMallocMemeError",
        4: "cmInitExpected", 5: "cmUnsupportedData",
    ]
    /// Names of `DECODING_STATE` bits (codec_app_def.h).
    static let decoderStateNames: [(Int, String)] = [
        (0x01, "dsFramePending"), (0x02, "dsRefLost"), (0x04, "dsBitstreamError"), (0x08, "dsDepLayerLost"),
        (0x10, "dsNoParamSets"), (0x20, "dsDataErrorConcealed"), (0x40, "dsRefListNullPtrs"),
        (0x1000, "dsInvalidArgument"), (0x2000, "dsInitialOptExpected"), (0x4000, "dsOutOfMemory"),
        (0x8000, "dsDstBufNeedExpan"),
    ]

    /// Whether this came from a decoder call (status is a `DECODING_STATE` bit set).
    public var isDecoderState: Bool { operation.hasPrefix("Decode") }

    /// The symbolic name(s) of the status.
    public var statusName: String {
        if isDecoderState {
            let names = OpenH264Error.decoderStateNames.filter { status & $0.0 != 0 }.map(\.1)
            return names.isEmpty ? "unknown" : names.joined(separator: "|")
        }
        return OpenH264Error.encoderStatusNames[status] ?? "unknown"
    }

    /// A readable explanation.
    public var description: String { "OpenH264 \(operation) failed: \(statusName) (\(status))" }

    /// Throws unless `status` is 0 (success for `CM_RETURN` and `DECODING_STATE` alike).
    /// - Parameters:
    ///   - status: the raw status.
    ///   - operation: the function name.
    /// - Throws: `OpenH264Error`.
    @inline(__always)
    static func check<T: BinaryInteger>(_ status: T, _ operation: StaticString) throws(OpenH264Error) {
        if status != 0 { throw OpenH264Error(operation: "\(operation)", status: Int(status)) }
    }
}
