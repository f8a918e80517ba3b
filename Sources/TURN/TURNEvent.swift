public import STUN

/// What a `TURNClient` tells its owner.
public enum TURNEvent: Sendable, Equatable {
    /// The allocation exists: the relayed address (a relay candidate), the client's address as the server saw it (a
    /// server-reflexive candidate) and the granted lifetime (refreshed by the client until `close`).
    case allocated(relayed: TransportAddress, mapped: TransportAddress?, lifetime: Duration)
    /// A permission for a peer's IP address is installed (and is now refreshed).
    case permissionInstalled(IPAddress)
    /// A channel is bound to a peer: data for it now goes as ChannelData.
    case channelBound(peer: TransportAddress, channel: UInt16)
    /// A permission or channel request for a peer failed; the allocation goes on.
    case peerRequestFailed(peer: TransportAddress, error: TURNError)
    /// Data a peer sent through the relay.
    case data(from: TransportAddress, payload: [UInt8])
    /// The allocation failed or was lost; the client does nothing more.
    case failed(TURNError)
    /// The allocation was released (`close`).
    case closed
}
