import Testing
@testable import Video

/// libyuv conversions through `FrameConverter` on small synthetic frames, expected bytes written out.
@Suite struct ConversionTests {
    @Test func nv12ToI420KeepsSamplesAndDeinterleavesChroma() throws {
        // 4x4 NV12 with padded rows (stride 6): Y = 0...15, UV pairs (100,200) (101,201) / (102,202) (103,203).
        var bytes = [UInt8](repeating: 0xEE, count: 6 * 4 + 6 * 2)
        for row in 0..<4 { for column in 0..<4 { bytes[row * 6 + column] = UInt8(row * 4 + column) } }
        bytes.replaceSubrange(24..<28, with: [100, 200, 101, 201])
        bytes.replaceSubrange(30..<34, with: [102, 202, 103, 203])
        let nv12 = try NV12Frame(width: 4, height: 4, strideY: 6, strideUV: 6, data: bytes)
        var converter = try FrameConverter(width: 4, height: 4)
        let i420 = try converter.convert(.nv12(nv12))
        #expect(i420.data == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                              100, 101, 102, 103,
                              200, 201, 202, 203])
    }

    @Test func bgraToI420UsesBT601VideoRange() throws {
        // 4x2 BGRA: left 2x2 white, right 2x2 red (B, G, R, A in memory).
        let white: [UInt8] = [255, 255, 255, 255], red: [UInt8] = [0, 0, 255, 255]
        let row = white + white + red + red
        let bgra = try BGRAFrame(width: 4, height: 2, stride: 16, data: row + row)
        var converter = try FrameConverter(width: 4, height: 2)
        let i420 = try converter.convert(.bgra(bgra))
        // BT.601 limited range: white Y 235 U 128 V 128; red Y 82 U 90 V 239 (libyuv's fixed point truncates
        // 128 + 0.439 x 255 = 239.9 down).
        #expect(i420.data == [235, 235, 82, 82, 235, 235, 82, 82, 128, 90, 128, 239])
    }

    @Test func nv12IsCentreCroppedToTheTargetAspect() throws {
        // 8x4 NV12 into a 4x4 target: crop x 2...5, no scaling. Y = 10 x column; U = 100 + 10 c, V = 150 + 10 c.
        var bytes = [UInt8](repeating: 0, count: 8 * 4 + 8 * 2)
        for row in 0..<4 { for column in 0..<8 { bytes[row * 8 + column] = UInt8(column * 10) } }
        for row in 0..<2 {
            for c in 0..<4 {
                bytes[32 + row * 8 + 2 * c] = UInt8(100 + 10 * c)
                bytes[32 + row * 8 + 2 * c + 1] = UInt8(150 + 10 * c)
            }
        }
        let nv12 = try NV12Frame(width: 8, height: 4, strideY: 8, strideUV: 8, data: bytes)
        var converter = try FrameConverter(width: 4, height: 4)
        let i420 = try converter.convert(.nv12(nv12))
        let yRow: [UInt8] = [20, 30, 40, 50]
        #expect(i420.data == yRow + yRow + yRow + yRow + [110, 120, 110, 120] + [160, 170, 160, 170])
    }

    @Test func scalingKeepsUniformColours() throws {
        var source = I420Frame(width: 8, height: 8)
        source.withUnsafeMutablePlanes { y, u, v in
            y.update(repeating: 50, count: 64)
            u.update(repeating: 60, count: 16)
            v.update(repeating: 70, count: 16)
        }
        var converter = try FrameConverter(width: 4, height: 4)
        let scaled = try converter.convert(.i420(source))
        #expect(scaled.data == [UInt8](repeating: 50, count: 16) + [UInt8](repeating: 60, count: 4)
                + [UInt8](repeating: 70, count: 4))
        // BGRA grey 128 scaled 8x8 -> 4x4 through the scratch buffer, twice (buffer reuse).
        let grey = try BGRAFrame(width: 8, height: 8, stride: 32, data: [UInt8](repeating: 128, count: 256))
        var output = I420Frame(width: 4, height: 4)
        for _ in 0..<2 {
            try converter.convert(.bgra(grey), into: &output)
            #expect(output.data == [UInt8](repeating: 126, count: 16) + [UInt8](repeating: 128, count: 8))
        }
    }

    @Test(arguments: [
        ((640, 480, 320, 180), CropRect(x: 0, y: 60, width: 640, height: 360)),
        ((1280, 720, 640, 480), CropRect(x: 160, y: 0, width: 960, height: 720)),
        ((1280, 720, 640, 360), CropRect(x: 0, y: 0, width: 1280, height: 720)),
        ((100, 100, 64, 48), CropRect(x: 0, y: 12, width: 100, height: 74)),
    ])
    func centreCrop(sizes: (Int, Int, Int, Int), expected: CropRect) {
        #expect(CropRect.centred(sourceWidth: sizes.0, sourceHeight: sizes.1, targetWidth: sizes.2,
                                 targetHeight: sizes.3) == expected)
    }

    @Test func invalidLayoutsAreRefused() {
        #expect(throws: VideoError.invalidFrameLayout("NV12 4x4 strides 2/4 with 24 bytes")) {
            _ = try NV12Frame(width: 4, height: 4, strideY: 2, strideUV: 4, data: [UInt8](repeating: 0, count: 24))
        }
        #expect(throws: VideoError.invalidFrameLayout("BGRA 4x4 stride 16 with 63 bytes")) {
            _ = try BGRAFrame(width: 4, height: 4, stride: 16, data: [UInt8](repeating: 0, count: 63))
        }
        #expect(throws: VideoError.invalidFrameLayout("I420 4x4 strides 4/2 with 23 bytes")) {
            _ = try I420Frame(width: 4, height: 4, strideY: 4, strideUV: 2, data: [UInt8](repeating: 0, count: 23))
        }
        #expect(throws: VideoError.invalidSize(width: 0, height: 4)) { _ = try FrameConverter(width: 0, height: 4) }
    }

    @Test func psnr() throws {
        let a = I420Frame(width: 16, height: 16)
        var b = a
        #expect(try PSNR(reference: a, distorted: b).overall == .infinity)
        // Every luma sample off by one: MSE 1, PSNR = 10 log10(255^2) = 48.13 dB.
        b.withUnsafeMutablePlanes { y, _, _ in for i in 0..<256 { y[i] += 1 } }
        let p = try PSNR(reference: a, distorted: b)
        #expect(abs(p.y - 48.1308) < 0.001)
        #expect(p.u == .infinity)
        #expect(abs(p.overall - (48.1308 + 10 * log10(1.5))) < 0.001)
        #expect(throws: VideoError.sizeMismatch(expectedWidth: 16, expectedHeight: 16, width: 32, height: 16)) {
            _ = try PSNR(reference: a, distorted: I420Frame(width: 32, height: 16))
        }
    }
}

import Foundation
