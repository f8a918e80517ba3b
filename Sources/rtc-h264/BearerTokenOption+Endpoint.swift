import ArgumentParser
import WHIP

extension BearerTokenOption {
    /// Checks a WHIP or WHEP endpoint's URL with its token and CA options before anything starts. The URL's own checks
    /// (a token over http:// only to loopback) need to know that there is a token, not what it is: a --token-file,
    /// read later, stands in as a placeholder.
    /// - Parameters:
    ///   - url: the endpoint's URL.
    ///   - token: `--token`, if given.
    ///   - tokenFile: `--token-file`, if given.
    ///   - caFile: `--ca-file`, if given.
    ///   - option: the URL's option, named in the error (`--whip`).
    ///   - endpoint: the protocol, named in the error (`WHIP`, `WHEP`).
    /// - Throws: `ValidationError` naming the option and what is wrong.
    static func checkEndpoint(
        _ url: String, token: String?, tokenFile: String?, caFile: String?, option: String, endpoint: String
    ) throws {
        var configuration = WHIPConfiguration(url: url, token: token ?? (tokenFile == nil ? nil : "token-from-file"))
        configuration.caFile = caFile
        do {
            try configuration.validate()
        } catch {
            throw ValidationError("\(option): \(error.description(endpoint: endpoint))")
        }
    }
}
