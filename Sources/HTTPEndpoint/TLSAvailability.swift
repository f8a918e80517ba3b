/// Whether this build speaks TLS: the package's `TLS` trait, on by default. A build without it
/// (`swift build --disable-default-traits`) leaves out swift-nio-ssl and the BoringSSL it compiles; every use of TLS
/// (an `https://` URL, a server certificate, a `turns:` server) is then an error with `missingMessage`.
package enum TLSAvailability {
    #if TLS
    /// True: this build has TLS.
    package static let isBuilt = true
    #else
    /// False: this build was made without the TLS trait.
    package static let isBuilt = false
    #endif

    /// What a use of TLS says in a build without it.
    package static let missingMessage =
        "this build has no TLS (built with --disable-default-traits, without the TLS trait): build with the default "
        + "traits (swift build -c release) for https:// URLs, --tls-cert/--tls-key and turns: servers"
}
