public import STUN

/// What an ICE agent reports to its owner.
public enum ICEEvent: Hashable, Sendable {
    /// The controlling peer nominated a pair (or moved to another one): send media to this address from now on.
    case selected(remote: TransportAddress)
    /// A full agent's pair was nominated (by us when controlling, by the peer when controlled): send media from
    /// `local` to `remote`.
    case selectedPair(local: TransportAddress, remote: TransportAddress)
    /// No authenticated STUN from the selected address for the consent timeout (RFC 7675 section 5.1): stop
    /// sending to it and tear the peer down.
    case consentExpired(remote: TransportAddress)
    /// No pair was nominated before the nomination timeout: the peer never connected (or a restart found no path).
    case failed
    /// A full agent's consent request on the selected pair has gone unanswered for its disconnect timeout: the path
    /// may be gone (an address change, a NAT rebinding); time to restart ICE. Consent has not expired yet.
    case disconnected(remote: TransportAddress)
}
