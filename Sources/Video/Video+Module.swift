internal import CYUV
// The Video module. See Docs/Architecture.md.
func _yuvVersion() -> Int32 { LIBYUV_VERSION }
