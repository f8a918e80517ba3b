#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The shape of a control endpoint request body (`{"bitrate": 1500000}`, `{"fps": 30}`, strings or numbers), as the
/// control server decodes it: an object of scalars, each kept as text for the rate parser.
struct ControlRequest: Decodable {
    /// One JSON string or number (mirrors the control server's `JSONScalar`).
    struct Scalar: Decodable {
        var text: String
        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let string = try? container.decode(String.self) {
                text = string
            } else if let integer = try? container.decode(Int.self) {
                text = String(integer)
            } else {
                text = String(try container.decode(Double.self))
            }
        }
    }

    var bitrate: Double?
    var fps: Double?
}
