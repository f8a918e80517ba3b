import Testing
@testable import Video

/// `I420FrameView`: layout checks, views of owned frames, copies out of a view, and the converter reading a view.
@Suite struct I420FrameViewTests {
    @Test func refusesLayoutsThatDoNotFit() {
        let bytes = [UInt8](repeating: 0, count: 64)
        bytes.withUnsafeBufferPointer { buffer in
            let p = buffer.baseAddress!
            #expect(throws: VideoError.invalidFrameLayout("I420 8x4 strides 6/4")) {
                _ = try I420FrameView(width: 8, height: 4, strideY: 6, strideUV: 4, y: p, u: p, v: p)
            }
            #expect(throws: VideoError.invalidFrameLayout("I420 7x4 strides 8/3")) {
                _ = try I420FrameView(width: 7, height: 4, strideY: 8, strideUV: 3, y: p, u: p, v: p)
            }
            #expect(throws: VideoError.invalidFrameLayout("I420 0x4 strides 8/4")) {
                _ = try I420FrameView(width: 0, height: 4, strideY: 8, strideUV: 4, y: p, u: p, v: p)
            }
        }
    }

    @Test func viewOfAPaddedFrameCopiesBackWithoutPadding() throws {
        let pattern = try TestPattern(width: 64, height: 48)
        let source = pattern.frame(5)
        var padded = I420Frame(width: 64, height: 48, strideY: 96, strideUV: 48)
        var converter = try FrameConverter(width: 64, height: 48)
        try converter.convert(.i420(source), into: &padded)
        let copy = padded.withView { view in
            #expect(view.strideY == 96 && view.strideUV == 48 && view.chromaWidth == 32 && view.chromaHeight == 24)
            return view.makeFrame()
        }
        #expect(copy == source)
        #expect(copy.isTightlyPacked)
    }

    @Test func copyIntoKeepsTheDestinationsStridesOrReplacesAWrongSize() throws {
        let source = try TestPattern(width: 64, height: 48).frame(2)
        var padded = I420Frame(width: 64, height: 48, strideY: 80, strideUV: 48)
        source.withView { $0.copy(into: &padded) }
        #expect(padded.strideY == 80 && padded.strideUV == 48, "the destination's layout is kept")
        #expect(padded.withView { $0.makeFrame() } == source)
        var wrong = I420Frame(width: 16, height: 16)
        source.withView { $0.copy(into: &wrong) }
        #expect(wrong == source)
    }

    @Test func converterScalesAViewLikeTheFrameItLends() throws {
        let source = try TestPattern(width: 320, height: 240).frame(9)
        var converter = try FrameConverter(width: 160, height: 90)
        let fromFrame = try converter.convert(.i420(source))
        var fromView = I420Frame(width: 2, height: 2)
        try source.withView { (view) throws(VideoError) in try converter.convert(view, into: &fromView) }
        #expect(fromView == fromFrame)
        #expect(fromView.width == 160 && fromView.height == 90)
    }

    @Test func withViewPassesErrorsThrough() {
        struct Marker: Error, Equatable {}
        #expect(throws: Marker()) { try I420Frame(width: 2, height: 2).withView { (_) throws(Marker) in throw Marker() } }
    }
}
