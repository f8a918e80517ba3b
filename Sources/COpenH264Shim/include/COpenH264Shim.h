#ifndef COPENH264SHIM_H
#define COPENH264SHIM_H
// Why this shim exists: OpenH264 2.3.1's C vtable declares ForceIntraFrame(ISVCEncoder*, bool), but the C++ method is
// ForceIntraFrame(bool bIDR, int iLayerId = -1). Called through the C vtable from Swift, iLayerId receives garbage and
// the keyframe may silently not happen. These functions are compiled as C++ and pass -1 explicitly.
#include <stdbool.h>
#include <wels/codec_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Asks the encoder for an IDR on the next frame, all layers. Returns the OpenH264 status (0 = cmResultSuccess).
int COpenH264Shim_forceIntraFrame(ISVCEncoder *encoder);

#ifdef __cplusplus
}
#endif
#endif
