import Control
import Testing
import TestSupport
@testable import WHEP

/// The WHEP server over HTTPS (`Options.tls`, `NIOSSLServerHandler` first in `HTTPEndpointListener`'s pipeline):
/// curl, trusting the test CA, gets the viewer page over TLS (by IP and by name); a client that does not trust the CA is
/// refused in the handshake; unusable certificate or key files stop the server before it listens.
@Suite(.serialized) struct WHEPServerHTTPSTests {
    static func options() -> WHEPServer.Options {
        var options = WHEPServer.Options(host: "127.0.0.1", port: 0)
        options.tls = TLSServerConfiguration(
            certificateChainPath: TestTLSFiles.serverCertificate, privateKeyPath: TestTLSFiles.serverKey)
        return options
    }

    @Test func theViewerPageIsServedOverTLSAndUntrustedClientsAreRefused() async throws {
        let (server, pump) = try await WHEPTestSupport.start(Self.options())
        defer { pump.cancel() }
        #expect(server.url == "https://127.0.0.1:\(server.localPort)/")
        for url in [server.url, "https://localhost:\(server.localPort)/"] {
            let page = try await Curl.request(url, caFile: TestTLSFiles.caCertificate)
            #expect(page.exitCode == 0, "\(page.stderr)")
            #expect(page.status == 200)
            // The page talks to the server through relative URLs: it works over https as over http.
            #expect(page.body.contains("fetch(\"/whep\""))
            #expect(!page.body.contains("http://"))
        }
        let plain = try await Curl.request("http://127.0.0.1:\(server.localPort)/", caFile: nil)
        #expect(plain.status != 200, "plain HTTP was answered on the HTTPS port")
        let untrusted = try await Curl.request(server.url, caFile: TestTLSFiles.otherHostCertificate)
        #expect(untrusted.exitCode == 60, "\(untrusted.stderr)")  // CURLE_PEER_FAILED_VERIFICATION
        await server.finish()
    }

    @Test(arguments: [
        (TestTLSFiles.directory + "/missing.pem", TestTLSFiles.serverKey, "certificate"),
        (TestTLSFiles.serverKey, TestTLSFiles.serverKey, "certificate"),
        (TestTLSFiles.serverCertificate, TestTLSFiles.directory + "/missing.key", "key"),
        (TestTLSFiles.serverCertificate, TestTLSFiles.serverCertificate, "key"),
        (TestTLSFiles.serverCertificate, TestTLSFiles.otherHostKey, "mismatch"),
    ])
    func unusableFilesStopTheServerWithTheReason(certificate: String, key: String, kind: String) async throws {
        var options = Self.options()
        options.tls = TLSServerConfiguration(certificateChainPath: certificate, privateKeyPath: key)
        do {
            let server = try await WHEPServer(configuration: WHEPTestSupport.configuration(), options: options)
            await server.finish()
            Issue.record("started with \(certificate) and \(key)")
        } catch let error as TLSServerError {
            switch (error, kind) {
            case (.certificateUnreadable(let path, _), "certificate"): #expect(path == certificate)
            case (.privateKeyUnreadable(let path, _), "key"): #expect(path == key)
            case (.keyMismatch, "mismatch"): #expect("\(error)".contains("key mismatch"))
            default: Issue.record("\(error), expected \(kind)")
            }
        }
    }
}
