/*
 * Reference for Tests/Benchmarks/Sources/EncoderBench: the same encode straight on OpenH264's C API.
 * Reads a Y4M file (4:2:0) into memory, then encodes every frame with the parameters H264Encoder uses
 * (Sources/Codec/H264Encoder+Parameters.swift): CAMERA_VIDEO_REAL_TIME, RC_BITRATE_MODE, target 1.5 Mbit/s,
 * ceiling 2.25 Mbit/s, frame skipping on, Constrained Baseline level 3.1, one thread, one slice, no scene-change
 * detection, IDR only on frame 0. Prints "fps=<frames per second of the encode loop>".
 *
 * Build: gcc -O2 encode_loop.c $(pkg-config --cflags --libs openh264) -o encode_loop
 * Usage: encode_loop FILE.y4m [runs] [pace_fps] [stream]
 * Each run prints the process CPU time of its encode loop alone ("cpu=", user+sys from getrusage, preload excluded).
 * With "stream" nothing is preloaded: each frame is read from the file into one reused buffer inside the timed loop,
 * as `rtc-h264 send --input FILE` reads it, so that "cpu=" covers the reading too (the fair side of the comparison
 * with a whole `send` process, which reads its input while it encodes).
 * With pace_fps > 0 each frame is encoded at its slot on a monotonic clock (as a real-time sender does) and the line
 * also gives the process CPU time spent from the first frame to the last as a percentage of one core
 * ("cpu_percent=..."): the floor for any real-time sender built on OpenH264 with these settings.
 */
#include <wels/codec_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

static double cpu_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s FILE.y4m [runs] [pace_fps]\n", argv[0]); return 2; }
    int runs = argc > 2 ? atoi(argv[2]) : 1;
    double pace = argc > 3 ? atof(argv[3]) : 0;
    int stream = argc > 4 && strcmp(argv[4], "stream") == 0;
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    char header[1025];
    if (!fgets(header, sizeof header, f)) { fprintf(stderr, "no header\n"); return 1; }
    int width = 0, height = 0;
    for (char *t = strtok(header, " \n"); t; t = strtok(NULL, " \n")) {
        if (t[0] == 'W') width = atoi(t + 1);
        if (t[0] == 'H') height = atoi(t + 1);
    }
    size_t frame_bytes = (size_t)width * height * 3 / 2;
    size_t capacity = 64, count = 0;
    unsigned char **frames = malloc(capacity * sizeof *frames);
    char line[256];
    long data_start = ftell(f);
    unsigned char *reused = malloc(frame_bytes);
    memset(reused, 0, frame_bytes);  /* its pages are touched before any timing, as a reader's reused buffer */
    while (!stream && fgets(line, sizeof line, f)) {
        if (strncmp(line, "FRAME", 5) != 0) { fprintf(stderr, "bad frame header\n"); return 1; }
        unsigned char *buf = malloc(frame_bytes);
        if (fread(buf, 1, frame_bytes, f) != frame_bytes) { free(buf); break; }
        if (count == capacity) frames = realloc(frames, (capacity *= 2) * sizeof *frames);
        frames[count++] = buf;
    }

    for (int run = 0; run < runs; run++) {
        if (stream) {
            fseek(f, data_start, SEEK_SET);
            count = 0;
        }
        ISVCEncoder *encoder = NULL;
        if (WelsCreateSVCEncoder(&encoder) != 0) return 1;
        int trace = WELS_LOG_ERROR;
        (*encoder)->SetOption(encoder, ENCODER_OPTION_TRACE_LEVEL, &trace);
        SEncParamExt p;
        (*encoder)->GetDefaultParams(encoder, &p);
        p.iUsageType = CAMERA_VIDEO_REAL_TIME;
        p.iPicWidth = width;
        p.iPicHeight = height;
        p.iTargetBitrate = 1500000;
        p.iMaxBitrate = 2250000;
        p.iRCMode = RC_BITRATE_MODE;
        p.fMaxFrameRate = 30;
        p.bEnableFrameSkip = true;
        p.iTemporalLayerNum = 1;
        p.iSpatialLayerNum = 1;
        p.uiIntraPeriod = 0;
        p.iNumRefFrame = 1;
        p.eSpsPpsIdStrategy = CONSTANT_ID;
        p.bPrefixNalAddingCtrl = false;
        p.bEnableSSEI = false;
        p.bSimulcastAVC = false;
        p.iPaddingFlag = 0;
        p.iEntropyCodingModeFlag = 0;
        p.iMultipleThreadIdc = 1;
        p.bEnableLongTermReference = false;
        p.bEnableDenoise = true;
        p.bEnableSceneChangeDetect = false;
        p.bEnableBackgroundDetection = true;   /* as H264Encoder (Docs/Encoder.md) */
        p.iMinQp = 12;                       /* EncoderConfiguration.defaultQPRange */
        p.iMaxQp = 45;
        p.bEnableAdaptiveQuant = true;
        p.iLoopFilterDisableIdc = 0;
        p.uiMaxNalSize = 0;
        SSpatialLayerConfig *layer = &p.sSpatialLayers[0];
        layer->iVideoWidth = width;
        layer->iVideoHeight = height;
        layer->fFrameRate = 30;
        layer->iSpatialBitrate = 1500000;
        layer->iMaxSpatialBitrate = 2250000;
        layer->uiProfileIdc = PRO_BASELINE;
        layer->uiLevelIdc = LEVEL_3_1;
        layer->sSliceArgument.uiSliceMode = SM_SINGLE_SLICE;
        layer->sSliceArgument.uiSliceNum = 1;
        if ((*encoder)->InitializeExt(encoder, &p) != 0) { fprintf(stderr, "InitializeExt failed\n"); return 1; }
        int format = videoFormatI420;
        (*encoder)->SetOption(encoder, ENCODER_OPTION_DATAFORMAT, &format);

        SSourcePicture pic;
        memset(&pic, 0, sizeof pic);
        pic.iColorFormat = videoFormatI420;
        pic.iPicWidth = width;
        pic.iPicHeight = height;
        pic.iStride[0] = width;
        pic.iStride[1] = pic.iStride[2] = (width + 1) / 2;
        SFrameBSInfo info;
        long long total_bytes = 0;
        int skipped = 0;
        double start = now_seconds();
        double cpu_start = cpu_seconds();
        struct timespec slot;
        clock_gettime(CLOCK_MONOTONIC, &slot);
        for (size_t i = 0; stream || i < count; i++) {
            if (stream) {
                if (!fgets(line, sizeof line, f)) break;
                if (strncmp(line, "FRAME", 5) != 0) { fprintf(stderr, "bad frame header\n"); return 1; }
                if (fread(reused, 1, frame_bytes, f) != frame_bytes) break;
                count = i + 1;
            }
            if (pace > 0 && i > 0) {
                long long ns = slot.tv_nsec + (long long)(1e9 / pace);
                slot.tv_sec += ns / 1000000000;
                slot.tv_nsec = ns % 1000000000;
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &slot, NULL) != 0) {}
            }
            pic.pData[0] = stream ? reused : frames[i];
            pic.pData[1] = pic.pData[0] + (size_t)width * height;
            pic.pData[2] = pic.pData[1] + (size_t)((width + 1) / 2) * ((height + 1) / 2);
            pic.uiTimeStamp = (long long)(i * 1000 / 30);
            /* H264Encoder forces the first IDR through its C++ shim, ForceIntraFrame(true, -1); the C vtable entry
             * lacks iLayerId, so call it with the C++ method's full signature (same ABI) to do the same work. */
            if (i == 0) ((int (*)(ISVCEncoder *, bool, int))(*encoder)->ForceIntraFrame)(encoder, true, -1);
            if ((*encoder)->EncodeFrame(encoder, &pic, &info) != 0) { fprintf(stderr, "EncodeFrame failed\n"); return 1; }
            /* A skipped frame leaves the previous iFrameSizeInBytes in place: count only encoded frames. */
            if (info.eFrameType == videoFrameTypeSkip) skipped++;
            else total_bytes += info.iFrameSizeInBytes;
        }
        double elapsed = now_seconds() - start;
        double cpu = cpu_seconds() - cpu_start;
        if (pace > 0) {
            /* The loop ends right after the last frame's encode: count its slot too. */
            double wall = elapsed + 1 / pace;
            printf("paced=%.2f frames=%zu bytes=%lld skipped=%d cpu=%.3f wall=%.3f cpu_percent=%.2f\n", pace, count,
                   total_bytes, skipped, cpu, wall, 100 * cpu / wall);
        } else {
            printf("fps=%.2f frames=%zu bytes=%lld skipped=%d cpu=%.3f\n", count / elapsed, count, total_bytes, skipped,
                   cpu);
        }
        (*encoder)->Uninitialize(encoder);
        WelsDestroySVCEncoder(encoder);
    }
    fclose(f);
    return 0;
}
