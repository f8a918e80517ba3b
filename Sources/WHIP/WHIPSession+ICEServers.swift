extension WHIPSession {
    /// What `rtc-h264 send --whip` prints about the endpoint's ICE servers: one line naming them (URIs and
    /// usernames, never a credential), then one line per skipped link; nothing when the 201 had no ICE server link.
    ///
    /// ```
    /// the WHIP endpoint offers ICE servers: stun:stun.example.net:3478, turn:turn.example.net:3478?transport=udp (user user, credential <redacted>)
    /// ```
    public var iceServerLines: [String] {
        var lines: [String] = []
        if !iceServers.isEmpty {
            lines.append("the WHIP endpoint offers ICE servers: " + iceServers.map(\.description).joined(separator: ", "))
        }
        lines += iceServerProblems.map { "the WHIP endpoint's Link headers: \($0)" }
        return lines
    }
}
