/// The RFC 6184 `profile-level-id` SDP parameter (section 8.1): three bytes written as six hex digits,
/// `profile_idc`, `profile-iop` (the SPS constraint-flag byte) and `level_idc`, e.g. `42e01f` (Constrained Baseline,
/// level 3.1) or `64001f` (High, level 3.1).
public struct ProfileLevelID: Hashable, Sendable, CustomStringConvertible {
    /// `profile_idc`.
    public var profileIdc: UInt8
    /// `profile-iop`: `constraint_set0_flag` in bit 7 down to `constraint_set5_flag` in bit 2.
    public var profileIOP: UInt8
    /// `level_idc`.
    public var levelIdc: UInt8

    /// `constraint_set3_flag` in `profile-iop`; with `level_idc` 11 it marks level 1b (H.264 A.3.1, RFC 6184 8.1).
    static let constraintSet3Bit: UInt8 = 0x10
    /// `level_idc` meaning level 1b outside Baseline, Main and Extended (H.264 A.3.1).
    static let level1bIdc: UInt8 = 9
    /// `level_idc` that, with constraint_set3_flag, means level 1b in Baseline, Main and Extended.
    static let level11Idc: UInt8 = 11
    /// `profile_idc` of Baseline (66), Main (77) and Extended (88).
    static let baselineMainExtendedIdcs: Set<UInt8> = [0x42, 0x4D, 0x58]

    /// RFC 6184 section 8.1 Table 5: which (profile_idc, profile-iop) pairs stand for which profile, as
    /// (profile_idc, mask of the profile-iop bits that matter, their value). Rows are tried in order.
    static let table: [(profileIdc: UInt8, mask: UInt8, value: UInt8, profile: H264Profile)] = [
        (0x42, 0b0100_1111, 0b0100_0000, .constrainedBaseline),  // x1xx0000
        (0x4D, 0b1000_1111, 0b1000_0000, .constrainedBaseline),  // 1xxx0000
        (0x58, 0b1100_1111, 0b1100_0000, .constrainedBaseline),  // 11xx0000
        (0x42, 0b0100_1111, 0b0000_0000, .baseline),  // x0xx0000
        (0x58, 0b1100_1111, 0b1000_0000, .baseline),  // 10xx0000
        (0x4D, 0b1010_1111, 0b0000_0000, .main),  // 0x0x0000
        (0x58, 0b1100_1111, 0b0000_0000, .extended),  // 00xx0000
        (0x64, 0b1111_1111, 0b0000_0000, .high),  // 00000000
        (0x64, 0b1111_1111, 0b0000_1100, .constrainedHigh),  // 00001100 (H.264 A.2.11; WebRTC's 640c)
        (0x6E, 0b1111_1111, 0b0000_0000, .high10),
        (0x7A, 0b1111_1111, 0b0000_0000, .high422),
        (0xF4, 0b1111_1111, 0b0000_0000, .high444),
        (0x6E, 0b1111_1111, 0b0001_0000, .high10Intra),
        (0x7A, 0b1111_1111, 0b0001_0000, .high422Intra),
        (0xF4, 0b1111_1111, 0b0001_0000, .high444Intra),
        (0x2C, 0b1111_1111, 0b0001_0000, .cavlc444Intra),
    ]

    /// Creates a value from its three bytes.
    /// - Parameters:
    ///   - profileIdc: `profile_idc`.
    ///   - profileIOP: the constraint-flag byte.
    ///   - levelIdc: `level_idc`.
    public init(profileIdc: UInt8, profileIOP: UInt8, levelIdc: UInt8) {
        self.profileIdc = profileIdc
        self.profileIOP = profileIOP
        self.levelIdc = levelIdc
    }

    /// Creates the canonical value for a named profile and level, as WebRTC writes it (`42e01f`, `4d001f`,
    /// `640c1f`, ...); level 1b is `level_idc` 11 plus constraint_set3 for Baseline/Main/Extended profiles, else 9.
    /// - Parameters:
    ///   - profile: the profile.
    ///   - levelIdc: `level_idc` (ignored when `isLevel1b`).
    ///   - isLevel1b: whether to signal level 1b.
    public init(profile: H264Profile, levelIdc: UInt8, isLevel1b: Bool = false) {
        let canonical: (UInt8, UInt8)
        switch profile {
        case .constrainedBaseline: canonical = (0x42, 0xE0)
        case .baseline: canonical = (0x42, 0x00)
        case .main: canonical = (0x4D, 0x00)
        case .extended: canonical = (0x58, 0x00)
        case .high: canonical = (0x64, 0x00)
        case .constrainedHigh: canonical = (0x64, 0x0C)
        case .high10: canonical = (0x6E, 0x00)
        case .high422: canonical = (0x7A, 0x00)
        case .high444: canonical = (0xF4, 0x00)
        case .high10Intra: canonical = (0x6E, 0x10)
        case .high422Intra: canonical = (0x7A, 0x10)
        case .high444Intra: canonical = (0xF4, 0x10)
        case .cavlc444Intra: canonical = (0x2C, 0x10)
        }
        var iop = canonical.1
        var level = levelIdc
        if isLevel1b {
            if Self.baselineMainExtendedIdcs.contains(canonical.0) {
                iop |= Self.constraintSet3Bit
                level = Self.level11Idc
            } else {
                level = Self.level1bIdc
            }
        }
        self.init(profileIdc: canonical.0, profileIOP: iop, levelIdc: level)
    }

    /// Parses six hexadecimal digits (either case), as found in an SDP `fmtp` line.
    /// - Parameter string: e.g. `42e01f`.
    /// - Throws: ``H264Error/invalidProfileLevelID(_:)`` when it is not exactly six hex digits.
    public init(string: String) throws(H264Error) {
        let utf8 = Array(string.utf8)
        guard utf8.count == 6 else { throw .invalidProfileLevelID(string) }
        var bytes: [UInt8] = []
        for pair in stride(from: 0, to: 6, by: 2) {
            guard let high = Self.hexValue(utf8[pair]), let low = Self.hexValue(utf8[pair + 1]) else {
                throw .invalidProfileLevelID(string)
            }
            bytes.append(high << 4 | low)
        }
        self.init(profileIdc: bytes[0], profileIOP: bytes[1], levelIdc: bytes[2])
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The profile named by RFC 6184 Table 5 (incl. the Constrained Baseline rules), or nil for other combinations.
    public var profile: H264Profile? {
        Self.table.first { $0.profileIdc == profileIdc && profileIOP & $0.mask == $0.value }?.profile
    }

    /// Whether this is level 1b: `level_idc` 11 with constraint_set3 in Baseline/Main/Extended, or `level_idc` 9.
    public var isLevel1b: Bool {
        if levelIdc == Self.level1bIdc { return true }
        return levelIdc == Self.level11Idc && profileIOP & Self.constraintSet3Bit != 0
            && Self.baselineMainExtendedIdcs.contains(profileIdc)
    }

    /// The level as written in H.264 Table A-1: "1b", "3", "3.1", ...
    public var levelName: String {
        if isLevel1b { return "1b" }
        let minor = levelIdc % 10
        return minor == 0 ? "\(levelIdc / 10)" : "\(levelIdc / 10).\(minor)"
    }

    /// The profile name, or "profile_idc N" for a combination Table 5 does not name.
    public var profileName: String {
        profile?.description ?? "profile_idc \(profileIdc)"
    }

    /// Six lowercase hex digits, e.g. `42e01f`.
    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in [profileIdc, profileIOP, levelIdc] {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
