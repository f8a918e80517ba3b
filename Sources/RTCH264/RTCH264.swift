// The library in one import: `import RTCH264` gives the public API of every module an application uses. The
// fine-grained products stay for those who want less (embedding only the sender links no HTTP, no WebRTC).

@_exported import MediaTime
@_exported import H264
@_exported import RTP
@_exported import SRTP
@_exported import Video
@_exported import Codec
@_exported import SDP
@_exported import Transport
@_exported import CongestionControl
@_exported import Sender
@_exported import Receiver
@_exported import HTTPRequester
@_exported import Control
@_exported import STUN
@_exported import TURN
@_exported import DTLS
@_exported import WebRTC
@_exported import WHEP
@_exported import WHIP
@_exported import WHEPPlayer
