import DTLS

/// The peer's ICE and DTLS parameters of a media section (media level first, then session level).
struct RemoteTransport {
    var credentials: ICECredentials
    var fingerprint: DTLSFingerprint
    var setup: DTLSSetup
    var candidates: [ICECandidate]
    var iceLite: Bool
}
