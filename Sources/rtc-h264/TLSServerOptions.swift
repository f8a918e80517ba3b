import ArgumentParser
import Control

/// `--tls-cert PEM --tls-key PEM`: HTTPS for the endpoints a command serves (`serve`: WHEP and the viewer page, and
/// the control endpoint; `send`: the control endpoint). Both or neither; the files are read when the endpoint starts.
struct TLSServerOptions: ParsableArguments {
    @Option(name: .customLong("tls-cert"), help: "Serve HTTPS: PEM certificate chain (server certificate first). Needs --tls-key, and a build with the TLS trait (the default).")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "Serve HTTPS: the certificate's PEM private key (unencrypted; never printed). Needs --tls-cert.")
    var tlsKey: String?

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("give both --tls-cert and --tls-key") }
    }

    /// The configuration, or nil without the options.
    var configuration: TLSServerConfiguration? {
        guard let tlsCert, let tlsKey else { return nil }
        return TLSServerConfiguration(certificateChainPath: tlsCert, privateKeyPath: tlsKey)
    }
}
