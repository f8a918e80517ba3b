/// The stream header of a YUV4MPEG2 file: `YUV4MPEG2 W<w> H<h> F<n>:<d> [I<i>] [A<a>:<b>] [C<cs>] [X...]`.
///
/// Only 8-bit 4:2:0 is accepted: `C420jpeg`, `C420paldv`, `C420mpeg2`, `C420`, or no `C` tag (which means 4:2:0).
/// The chroma siting variants differ only in sample position, which this package does not resample.
public struct Y4MHeader: Sendable, Equatable {
    /// Picture width.
    public var width: Int
    /// Picture height.
    public var height: Int
    /// Frame rate numerator (`F` tag; 30 if absent).
    public var frameRateNumerator: Int
    /// Frame rate denominator (`F` tag; 1 if absent).
    public var frameRateDenominator: Int
    /// The `C` tag value without the `C`, or nil when absent.
    public var colorSpace: String?

    /// The stream magic.
    public static let magic = "YUV4MPEG2"
    /// The colour spaces accepted (all 8-bit 4:2:0).
    public static let supportedColorSpaces: Set<String> = ["420jpeg", "420paldv", "420mpeg2", "420"]
    /// The longest header line accepted, in bytes.
    public static let maxLength = 1024
    /// The largest width or height accepted: above the largest picture any H.264 level allows (level 6.2: 139264
    /// macroblocks, at most sqrt(8 * 139264) = 1055 macroblocks = 16880 pixels wide, H.264 A.3.1), and small enough
    /// that `frameByteCount` cannot overflow (16384 x 16384 x 1.5 = 384 MiB).
    public static let maxDimension = 16384
    /// The largest frame rate numerator or denominator accepted (the `F` tag's integers are 32-bit in practice).
    public static let maxFrameRateTerm = Int(Int32.max)
    /// The highest frame rate accepted, in frames per second (no camera or encoder level comes near it).
    public static let maxFrameRate = 1000

    /// Creates a header.
    /// - Parameters:
    ///   - width: picture width.
    ///   - height: picture height.
    ///   - frameRateNumerator: frame rate numerator.
    ///   - frameRateDenominator: frame rate denominator.
    ///   - colorSpace: `C` tag value, e.g. "420jpeg".
    public init(width: Int, height: Int, frameRateNumerator: Int = 30, frameRateDenominator: Int = 1,
                colorSpace: String? = "420jpeg") {
        self.width = width
        self.height = height
        self.frameRateNumerator = frameRateNumerator
        self.frameRateDenominator = frameRateDenominator
        self.colorSpace = colorSpace
    }

    /// Frames per second.
    public var frameRate: Double { Double(frameRateNumerator) / Double(frameRateDenominator) }

    /// Bytes of one frame's picture data.
    public var frameByteCount: Int { I420Frame.byteCount(height: height, strideY: width, strideUV: (width + 1) / 2) }

    /// Parses a header line (without its newline).
    /// - Parameter line: the first line of the stream.
    /// - Throws: `Y4MError.badHeader` or `Y4MError.unsupportedColorSpace`.
    public init(parsing line: String) throws(Y4MError) {
        let tokens = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let first = tokens.first, first == Y4MHeader.magic else {
            throw .badHeader("does not start with \(Y4MHeader.magic)")
        }
        var width: Int?
        var height: Int?
        var rate = (30, 1)
        var colorSpace: String?
        for token in tokens.dropFirst() {
            let value = token.dropFirst()
            switch token.first {
            case "W":
                guard let w = Int(value), w > 0 else { throw .badHeader("bad width \(token)") }
                guard w <= Y4MHeader.maxDimension else {
                    throw .badHeader("width \(w) is over the \(Y4MHeader.maxDimension) accepted")
                }
                width = w
            case "H":
                guard let h = Int(value), h > 0 else { throw .badHeader("bad height \(token)") }
                guard h <= Y4MHeader.maxDimension else {
                    throw .badHeader("height \(h) is over the \(Y4MHeader.maxDimension) accepted")
                }
                height = h
            case "F":
                let parts = value.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]), n > 0, d > 0,
                      n <= Y4MHeader.maxFrameRateTerm, d <= Y4MHeader.maxFrameRateTerm
                else {
                    throw .badHeader("bad frame rate \(token)")
                }
                // n / d > max, compared without division (both are at most 2^31, so the product fits).
                guard n <= Y4MHeader.maxFrameRate * d else {
                    throw .badHeader("frame rate \(token) is over \(Y4MHeader.maxFrameRate) frames per second")
                }
                rate = (n, d)
            case "C":
                colorSpace = String(value)
            default:
                continue  // I (interlacing), A (aspect), X (extensions): not needed to read the pictures.
            }
        }
        guard let width else { throw .badHeader("missing W (width)") }
        guard let height else { throw .badHeader("missing H (height)") }
        if let colorSpace, !Y4MHeader.supportedColorSpaces.contains(colorSpace) {
            throw .unsupportedColorSpace(colorSpace)
        }
        self.init(width: width, height: height, frameRateNumerator: rate.0, frameRateDenominator: rate.1,
                  colorSpace: colorSpace)
    }

    /// The header line, newline included.
    public var line: String {
        var s = "\(Y4MHeader.magic) W\(width) H\(height) F\(frameRateNumerator):\(frameRateDenominator) Ip A1:1"
        if let colorSpace { s += " C\(colorSpace)" }
        return s + "\n"
    }
}
