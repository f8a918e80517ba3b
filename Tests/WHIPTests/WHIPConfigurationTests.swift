import HTTPEndpoint
import HTTPRequester
import Testing
@testable import WHIP

/// The WHIP configuration's checks (the token never printed, never in clear beyond loopback, bounds) and the WHIP
/// errors the shared HTTP client's errors become.
@Suite struct WHIPConfigurationTests {
    @Test func aConfigurationNeverPrintsItsToken() {
        let configuration = WHIPConfiguration(url: "http://sfu.example/whip", token: "very-secret-token")
        for text in ["\(configuration)", String(describing: configuration), String(reflecting: configuration),
                     "\([configuration])"] {
            #expect(!text.contains("very-secret-token"), "\(text)")
            #expect(text.contains("<redacted>"))
        }
    }

    @Test func configurationChecksTokenAndBounds() {
        #expect(throws: WHIPError.unsupportedScheme("ftp")) {
            try WHIPConfiguration(url: "ftp://sfu.example/whip").validate()
        }
        #expect(throws: Never.self) { try WHIPConfiguration(url: "https://sfu.example/whip").validate() }
        #expect(throws: WHIPError.self) { try WHIPConfiguration(url: "http://sfu.example/whip", token: "a b").validate() }
        #expect(throws: WHIPError.self) { try WHIPConfiguration(url: "http://sfu.example/whip", token: "").validate() }
        #expect(throws: WHIPError.self) {
            try WHIPConfiguration(url: "http://sfu.example/whip", token: "line\r\nX-Injected: 1").validate()
        }
        var configuration = WHIPConfiguration(url: "https://sfu.example/whip", token: "abc")
        configuration.maximumRedirects = 21
        #expect(throws: WHIPError.self) { try configuration.validate() }
        configuration.maximumRedirects = 5
        configuration.requestTimeout = .zero
        #expect(throws: WHIPError.self) { try configuration.validate() }
        configuration.requestTimeout = .seconds(1)
        #expect(throws: Never.self) { try configuration.validate() }
    }

    /// A bearer token goes over plain http:// only to a loopback host: refused before anything is sent.
    @Test func aTokenOverPlainHTTPNeedsALoopbackHost() throws {
        for url in ["http://sfu.example/whip", "http://10.0.0.1:8080/whip", "http://127.example.com/whip"] {
            #expect(throws: WHIPError.tokenRequiresHTTPS(url: try HTTPURL(parsing: url).description)) {
                try WHIPConfiguration(url: url, token: "abc").validate()
            }
        }
        for url in ["http://127.0.0.1:7080/whip", "http://localhost/whip", "http://[::1]/whip", "https://sfu.example/whip"] {
            #expect(throws: Never.self) { try WHIPConfiguration(url: url, token: "abc").validate() }
        }
        #expect(throws: Never.self) { try WHIPConfiguration(url: "http://sfu.example/whip").validate() }
        let error = WHIPError.tokenRequiresHTTPS(url: "http://sfu.example/whip")
        #expect("\(error)".contains("https://"))
        #expect(WHIPError.unsupportedScheme("ftp").description.contains("only http:// and https://"))
    }

    /// The shared client's errors keep the WHIP wording and cases.
    @Test func httpErrorsBecomeWHIPErrors() {
        #expect(WHIPError(HTTPURLError.unusableReference("empty")) == .badLocation("empty"))
        #expect(WHIPError(HTTPURLError.invalid("x")) == .invalidURL("x"))
        #expect(WHIPError(HTTPURLError.unsupportedScheme("ftp")) == .unsupportedScheme("ftp"))
        #expect(WHIPError(HTTPExchangeError.noReply(url: "http://h/w"))
            == .connectionFailed(url: "http://h/w", reason: "the connection closed before a complete reply"))
        #expect(WHIPError(HTTPExchangeError.timedOut(url: "http://h/w")) == .timedOut(url: "http://h/w"))
        #expect(WHIPError(HTTPExchangeError.invalidCAFile(path: "p", reason: "r")).description == "--ca-file p: r")
        let noTLS = WHIPError(HTTPExchangeError.tlsNotInThisBuild(url: "https://h/w"))
        #expect(noTLS == .tlsNotInThisBuild(url: "https://h/w"))
        #expect(noTLS.description.hasPrefix("https://h/w: this build has no TLS"))
        #expect(noTLS.description.contains("--disable-default-traits"))
    }

    /// The tests build with the default traits, TLS among them (Tests/Setup/run.sh checks the build without it).
    @Test func theDefaultBuildHasTLS() throws {
        #expect(TLSAvailability.isBuilt)
        _ = try TLSClientContext(caFile: nil)
    }
}
