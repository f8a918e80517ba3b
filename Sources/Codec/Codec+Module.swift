internal import COpenH264
internal import COpenH264Shim
// The Codec module. See Docs/Architecture.md.
func _openH264Version() -> OpenH264Version { WelsGetCodecVersion() }
