public import DTLS

/// Our ICE and DTLS parameters, written into offers and answers.
public struct LocalTransportDescription: Hashable, Sendable {
    /// Our ICE credentials.
    public var credentials: ICECredentials
    /// Our candidates (for a WHEP server the one host candidate of its socket).
    public var candidates: [ICECandidate]
    /// Whether we are an ICE-lite agent (`a=ice-lite`): the WHEP server is, the WHIP client is not.
    public var iceLite: Bool
    /// Our certificate's fingerprint.
    public var fingerprint: DTLSFingerprint
    /// What we answer to `a=setup:actpass`: `.passive` (the browser starts DTLS once ICE connects) or `.active`.
    public var preferredSetup: DTLSSetup = .passive

    /// Creates a description.
    /// - Parameters:
    ///   - credentials: Our ICE credentials.
    ///   - candidates: Our candidates.
    ///   - iceLite: Whether we are ICE-lite.
    ///   - fingerprint: Our certificate's fingerprint.
    public init(credentials: ICECredentials, candidates: [ICECandidate], iceLite: Bool, fingerprint: DTLSFingerprint) {
        self.credentials = credentials
        self.candidates = candidates
        self.iceLite = iceLite
        self.fingerprint = fingerprint
    }
}
