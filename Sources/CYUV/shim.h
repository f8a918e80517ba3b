#ifndef CYUV_SHIM_H
#define CYUV_SHIM_H
#include <libyuv.h>
#endif
