import Video

/// Where `encode` reads its pictures: a Y4M stream or the test pattern.
enum EncodeSource {
    case y4m(Y4MReader)
    case pattern(TestPattern)

    var width: Int {
        switch self {
        case .y4m(let reader): return reader.header.width
        case .pattern(let pattern): return pattern.width
        }
    }

    var height: Int {
        switch self {
        case .y4m(let reader): return reader.header.height
        case .pattern(let pattern): return pattern.height
        }
    }

    var frameRate: Double {
        switch self {
        case .y4m(let reader): return reader.header.frameRate
        case .pattern: return EncoderOptions.defaultFrameRate
        }
    }

    /// Fills `picture` with frame `index`; false at the end of the input.
    func next(index: Int, into picture: inout I420Frame) throws -> Bool {
        switch self {
        case .y4m(let reader): return try reader.readFrame(into: &picture)
        case .pattern(let pattern):
            pattern.render(frameIndex: index, into: &picture)
            return true
        }
    }
}
