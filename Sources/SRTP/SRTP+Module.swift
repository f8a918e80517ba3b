internal import CSRTP
// The SRTP module. See Docs/Architecture.md.
func _srtpVersion() -> String { String(cString: srtp_get_version_string()) }
