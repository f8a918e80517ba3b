/*
 * srtp_loop.c: the reference for Tests/Benchmarks/Sources/SRTPBench. The same work as the Swift benchmark with nothing
 * in between: write a 12-byte RTP header and a 1188-byte payload into one reusable buffer, call srtp_protect on it,
 * repeat. Prints one line per suite:
 *   RESULT C <SDP suite name> <packets/s> <allocations/packet or n/a>
 *
 * Build: gcc -O2 -o srtp_loop srtp_loop.c $(pkg-config --cflags --libs libsrtp2)
 * Run:   ./srtp_loop [packets]        (default 100000; LD_PRELOAD=malloc_count.so to count allocations)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <srtp2/srtp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    rtp_header_length = 12,       /* RFC 3550 section 5.1, no CSRCs or extension */
    rtp_packet_length = 1200,     /* header + payload, a typical video MTU budget */
    warmup_packets = 1000,
    repetitions = 3,
};

typedef uint64_t (*malloc_count_fn)(void);

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The packetize step: the same bytes the Swift benchmark writes. */
static int packetize(uint8_t *buffer, uint16_t sequence, uint32_t timestamp, uint32_t ssrc,
                     const uint8_t *payload, int payload_length) {
    buffer[0] = 0x80;
    buffer[1] = 96;
    buffer[2] = (uint8_t)(sequence >> 8);
    buffer[3] = (uint8_t)sequence;
    buffer[4] = (uint8_t)(timestamp >> 24);
    buffer[5] = (uint8_t)(timestamp >> 16);
    buffer[6] = (uint8_t)(timestamp >> 8);
    buffer[7] = (uint8_t)timestamp;
    buffer[8] = (uint8_t)(ssrc >> 24);
    buffer[9] = (uint8_t)(ssrc >> 16);
    buffer[10] = (uint8_t)(ssrc >> 8);
    buffer[11] = (uint8_t)ssrc;
    memcpy(buffer + rtp_header_length, payload, (size_t)payload_length);
    return rtp_header_length + payload_length;
}

static int run(const char *name, void (*set_policy)(srtp_crypto_policy_t *), int key_length, long packets,
               malloc_count_fn malloc_count) {
    uint8_t key[SRTP_MAX_KEY_LEN];
    for (int i = 0; i < key_length; i++) {
        key[i] = (uint8_t)(i * 7 + 1);
    }
    srtp_policy_t policy;
    memset(&policy, 0, sizeof(policy));
    set_policy(&policy.rtp);
    set_policy(&policy.rtcp);
    policy.ssrc.type = ssrc_any_outbound;
    policy.key = key;
    policy.window_size = 1024;

    uint8_t payload[rtp_packet_length - rtp_header_length];
    for (size_t i = 0; i < sizeof(payload); i++) {
        payload[i] = (uint8_t)i;
    }
    uint8_t buffer[rtp_packet_length + SRTP_MAX_TRAILER_LEN];
    const uint32_t ssrc = 0x12345678;
    uint32_t checksum = 0;
    double best = 0;
    double allocations_per_packet = -1;
    long sequence = 0;

    for (int repetition = 0; repetition < repetitions; repetition++) {
        srtp_t session;
        if (srtp_create(&session, &policy) != srtp_err_status_ok) {
            fprintf(stderr, "srtp_create failed for %s\n", name);
            return 1;
        }
        for (long i = 0; i < warmup_packets; i++, sequence++) {
            int length = packetize(buffer, (uint16_t)sequence, (uint32_t)(sequence / 4 * 3000), ssrc, payload,
                                   (int)sizeof(payload));
            if (srtp_protect(session, buffer, &length) != srtp_err_status_ok) {
                fprintf(stderr, "srtp_protect failed\n");
                return 1;
            }
            checksum += buffer[length - 1];
        }
        uint64_t allocations_before = malloc_count ? malloc_count() : 0;
        double start = now_seconds();
        for (long i = 0; i < packets; i++, sequence++) {
            int length = packetize(buffer, (uint16_t)sequence, (uint32_t)(sequence / 4 * 3000), ssrc, payload,
                                   (int)sizeof(payload));
            if (srtp_protect(session, buffer, &length) != srtp_err_status_ok) {
                fprintf(stderr, "srtp_protect failed\n");
                return 1;
            }
            checksum += buffer[length - 1];
        }
        double elapsed = now_seconds() - start;
        uint64_t allocations_after = malloc_count ? malloc_count() : 0;
        if (malloc_count) {
            allocations_per_packet = (double)(allocations_after - allocations_before) / (double)packets;
        }
        double rate = (double)packets / elapsed;
        if (rate > best) {
            best = rate;
        }
        srtp_dealloc(session);
    }
    if (allocations_per_packet >= 0) {
        printf("RESULT C %s %.0f %.3f (checksum %u)\n", name, best, allocations_per_packet, checksum);
    } else {
        printf("RESULT C %s %.0f n/a (checksum %u)\n", name, best, checksum);
    }
    return 0;
}

int main(int argc, char **argv) {
    long packets = argc > 1 ? atol(argv[1]) : 100000;
    if (srtp_init() != srtp_err_status_ok) {
        fprintf(stderr, "srtp_init failed\n");
        return 1;
    }
    malloc_count_fn malloc_count = (malloc_count_fn)dlsym(RTLD_DEFAULT, "malloc_count_total");
    if (run("AES_CM_128_HMAC_SHA1_80", srtp_crypto_policy_set_rtp_default, SRTP_AES_ICM_128_KEY_LEN_WSALT, packets,
            malloc_count) != 0) {
        return 1;
    }
    if (run("AEAD_AES_128_GCM", srtp_crypto_policy_set_aes_gcm_128_16_auth, SRTP_AES_GCM_128_KEY_LEN_WSALT, packets,
            malloc_count) != 0) {
        return 1;
    }
    return 0;
}
