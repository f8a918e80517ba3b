/// The test-only certificates and keys in `Tests/TestSupport/TLS` (see its README): paths for the HTTPS tests.
public enum TestTLSFiles {
    /// The folder, found from this source file's path (the tests run from the package's checkout).
    public static let directory: String = {
        let file = #filePath
        let folder = file[..<(file.lastIndex(of: "/") ?? file.endIndex)]
        return "\(folder)/TLS"
    }()

    /// The test CA's certificate (PEM).
    public static var caCertificate: String { "\(directory)/ca.pem" }
    /// The certificate for localhost, 127.0.0.1 and ::1, signed by the test CA.
    public static var serverCertificate: String { "\(directory)/server.pem" }
    /// The key of `serverCertificate`.
    public static var serverKey: String { "\(directory)/server.key" }
    /// A certificate for other.example only, signed by the test CA.
    public static var otherHostCertificate: String { "\(directory)/other-host.pem" }
    /// The key of `otherHostCertificate` (does not match `serverCertificate`).
    public static var otherHostKey: String { "\(directory)/other-host.key" }
    /// A certificate for localhost and 127.0.0.1 that expired on 2020-01-02, signed by the test CA.
    public static var expiredCertificate: String { "\(directory)/expired.pem" }
    /// The key of `expiredCertificate`.
    public static var expiredKey: String { "\(directory)/expired.key" }
}
