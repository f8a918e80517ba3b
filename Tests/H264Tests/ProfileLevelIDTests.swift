import Testing
import H264

@Suite struct ProfileLevelIDTests {
    /// RFC 6184 section 8.1 Table 5 and the level 1b rule, one row per combination.
    static let names: [(string: String, profile: H264Profile?, level: String)] = [
        ("42e01f", .constrainedBaseline, "3.1"),
        ("42c01f", .constrainedBaseline, "3.1"),
        ("42401f", .constrainedBaseline, "3.1"),
        ("4d801f", .constrainedBaseline, "3.1"),  // Main with constraint_set0
        ("58c01e", .constrainedBaseline, "3"),  // Extended with constraint_set0 and set1
        ("42001f", .baseline, "3.1"),
        ("42801f", .baseline, "3.1"),
        ("58801e", .baseline, "3"),
        ("4d001f", .main, "3.1"),
        ("4d401f", .main, "3.1"),  // constraint_set1 alone keeps Main
        ("58001e", .extended, "3"),
        ("64001f", .high, "3.1"),
        ("640c1f", .constrainedHigh, "3.1"),
        ("6e0028", .high10, "4"),
        ("7a0015", .high422, "2.1"),
        ("f40033", .high444, "5.1"),
        ("6e101f", .high10Intra, "3.1"),
        ("7a101f", .high422Intra, "3.1"),
        ("f4101f", .high444Intra, "3.1"),
        ("2c101f", .cavlc444Intra, "3.1"),
        ("42f00b", .constrainedBaseline, "1b"),
        ("42100b", .baseline, "1b"),
        ("4d100b", .main, "1b"),
        ("640009", .high, "1b"),
        ("42e00b", .constrainedBaseline, "1.1"),  // level_idc 11 without constraint_set3
        ("64100b", nil, "1.1"),  // constraint_set3 is no 1b flag outside Baseline/Main/Extended, and no High row
        ("64081f", nil, "3.1"),  // constraint_set4 alone: not in Table 5
        ("420f1f", nil, "3.1"),  // reserved bits set
        ("53001f", nil, "3.1"),  // Scalable Baseline
        ("4D401F", .main, "3.1"),  // upper case digits
    ]

    @Test(arguments: 0..<names.count) func profileAndLevelNames(_ index: Int) throws {
        let row = Self.names[index]
        let pli = try ProfileLevelID(string: row.string)
        #expect(pli.profile == row.profile, "\(row.string)")
        #expect(pli.levelName == row.level, "\(row.string)")
        #expect(pli.description == row.string.lowercased())
    }

    @Test func fieldsAndUnknownProfileName() throws {
        let pli = try ProfileLevelID(string: "53001f")
        #expect(pli == ProfileLevelID(profileIdc: 0x53, profileIOP: 0x00, levelIdc: 0x1F))
        #expect(pli.profileName == "profile_idc 83")
        #expect(try ProfileLevelID(string: "42e01f").profileName == "Constrained Baseline")
    }

    static let canonical: [(profile: H264Profile, level: UInt8, isLevel1b: Bool, string: String)] = [
        (.constrainedBaseline, 31, false, "42e01f"),
        (.baseline, 31, false, "42001f"),
        (.main, 31, false, "4d001f"),
        (.extended, 30, false, "58001e"),
        (.high, 31, false, "64001f"),
        (.constrainedHigh, 31, false, "640c1f"),
        (.high10, 40, false, "6e0028"),
        (.high422, 21, false, "7a0015"),
        (.high444, 40, false, "f40028"),
        (.high10Intra, 31, false, "6e101f"),
        (.high422Intra, 31, false, "7a101f"),
        (.high444Intra, 31, false, "f4101f"),
        (.cavlc444Intra, 31, false, "2c101f"),
        (.constrainedBaseline, 0, true, "42f00b"),
        (.main, 0, true, "4d100b"),
        (.high, 0, true, "640009"),
    ]

    @Test(arguments: 0..<canonical.count) func canonicalValuesRoundTrip(_ index: Int) throws {
        let row = Self.canonical[index]
        let pli = ProfileLevelID(profile: row.profile, levelIdc: row.level, isLevel1b: row.isLevel1b)
        #expect(pli.description == row.string)
        #expect(pli.profile == row.profile)
        #expect(pli.isLevel1b == row.isLevel1b)
        #expect(try ProfileLevelID(string: row.string) == pli)
    }

    @Test(arguments: ["", "42e01", "42e01f0", "42g01f", "0x42e0", " 42e01f", "42e01f\n", "４２e01f"])
    func invalidStrings(_ text: String) {
        #expect(throws: H264Error.invalidProfileLevelID(text)) { try ProfileLevelID(string: text) }
    }

    @Test func fromAnSPS() throws {
        let sps = try SequenceParameterSet(nalUnit: SequenceParameterSetTests.highSPS)
        #expect(sps.profileLevelID.description == "64000b")
        #expect(sps.profileLevelID.profile == .high)
    }
}
