#ifndef COPENH264_SHIM_H
#define COPENH264_SHIM_H
#include <stdbool.h>
#include <wels/codec_api.h>
#include <wels/codec_app_def.h>
#include <wels/codec_def.h>
#include <wels/codec_ver.h>
#endif
