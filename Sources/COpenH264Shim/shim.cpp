#include "COpenH264Shim.h"

extern "C" int COpenH264Shim_forceIntraFrame(ISVCEncoder *encoder) {
    // In C++ `ISVCEncoder` is the class; the C header's ISVCEncoder is a pointer to the vtable. Both are the same object.
    return encoder->ForceIntraFrame(true, -1);
}
