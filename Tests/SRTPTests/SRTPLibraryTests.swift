#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import SRTP

/// Process-wide libsrtp setup: with an NSS-backed libsrtp2 (Debian's), NSS and its softoken stay loaded while no
/// session exists, instead of being unloaded and loaded again for every session (`CSRTP_holdNSSContext`).
@Suite struct SRTPLibraryTests {
    /// Whether `symbol` is visible in the process's global scope.
    static func processHasSymbol(_ symbol: String) -> Bool {
        guard let process = dlopen(nil, RTLD_NOW) else { return false }
        return dlsym(process, symbol) != nil
    }

    @Test func nssStaysLoadedWhenNoSessionIsLeft() throws {
        try SRTPLibrary.initializeOnce()
        guard Self.processHasSymbol("NSS_InitContext") else {
            #expect(SRTPLibrary.nssContextHeld == 0, "libsrtp2 without NSS: nothing to hold")
            return
        }
        #expect(SRTPLibrary.nssContextHeld == 1, "libsrtp2 uses NSS here: one context must be held")
        for suite in SRTPSuite.allCases {
            _ = try SRTPSession(direction: .outbound, suite: suite, key: SRTPMasterKey.random(for: suite))
        }
        // Every session above is gone; NSS would have unloaded its softoken with the last one.
        let softoken = dlopen("libsoftokn3.so", RTLD_LAZY | RTLD_NOLOAD)
        #expect(softoken != nil, "NSS unloaded its softoken when the last SRTP session was released")
        if let softoken { dlclose(softoken) }
    }

    /// AES-ICM and HMAC-SHA1 run on OpenSSL: each passed libsrtp2's self-test and replaced libsrtp2's own (the
    /// known-answer vectors of `SRTPReferenceVectorTests` then go through them end to end).
    @Test func aesICMAndHMACSHA1RunOnOpenSSL() throws {
        try SRTPLibrary.initializeOnce()
        #expect(SRTPLibrary.usesOpenSSLCrypto)
    }

    @Test func theVersionIsLibsrtp2() {
        #expect(SRTPLibrary.versionString.hasPrefix("libsrtp2 2."))
    }
}
