/*
 * libsrtp2 crypto types on OpenSSL's libcrypto: AES-128/256 in integer counter mode (RFC 3711 section 4.1.1) through
 * EVP's AES-CTR, AES-128/256-GCM (RFC 7714) through EVP's AES-GCM, and HMAC-SHA1 (RFC 2104) over SHA1 states kept per key, so that each packet's MAC is two struct
 * copies and the hashing itself: no allocation and no context set-up per packet. See CSRTPCrypto.h.
 */
#define OPENSSL_SUPPRESS_DEPRECATED /* SHA1_Init/Update/Final: the allocation-free form of OpenSSL's SHA-1 */
#include "CSRTPCrypto.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <srtp2/auth.h>
#include <srtp2/cipher.h>
#include <srtp2/srtp.h>
#include <stdlib.h>
#include <string.h>

enum { SALT_LENGTH = 14, BLOCK = 16, SHA1_LENGTH = 20, SHA1_BLOCK = 64 };

/* MARK: AES-ICM */

/* The state of an AES cipher of either mode: the EVP context, the key size, and the mode's own field. */
typedef struct {
    EVP_CIPHER_CTX *context;
    int keySize;                 /* 16 or 32 */
    int tagLength;               /* GCM: 16 or 8 */
    unsigned char offset[BLOCK]; /* ICM: the salt, its last two octets zero */
} AESState;

static const srtp_cipher_type_t icm128Type;
static const srtp_cipher_type_t icm256Type;
static const srtp_cipher_type_t gcm128Type;
static const srtp_cipher_type_t gcm256Type;

/* Allocates a cipher of `type` with its state and EVP context. */
static srtp_err_status_t aesAlloc(srtp_cipher_t **cipher, const srtp_cipher_type_t *type, int keyLength, int keySize,
                                  int tagLength) {
    srtp_cipher_t *made = calloc(1, sizeof(srtp_cipher_t));
    AESState *state = calloc(1, sizeof(AESState));
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (made == NULL || state == NULL || context == NULL) {
        free(made);
        free(state);
        EVP_CIPHER_CTX_free(context);
        return srtp_err_status_alloc_fail;
    }
    state->context = context;
    state->keySize = keySize;
    state->tagLength = tagLength;
    made->type = type;
    made->state = state;
    made->key_len = keyLength;
    made->algorithm = (int)type->id;
    *cipher = made;
    return srtp_err_status_ok;
}

static srtp_err_status_t aesDealloc(srtp_cipher_t *cipher) {
    if (cipher == NULL) return srtp_err_status_bad_param;
    AESState *state = cipher->state;
    if (state != NULL) {
        EVP_CIPHER_CTX_free(state->context);
        OPENSSL_cleanse(state, sizeof(AESState));
        free(state);
    }
    free(cipher);
    return srtp_err_status_ok;
}

static srtp_err_status_t icmAlloc(srtp_cipher_t **cipher, int keyLength, int tagLength) {
    (void)tagLength;
    switch (keyLength) {
    case SRTP_AES_ICM_128_KEY_LEN_WSALT: return aesAlloc(cipher, &icm128Type, keyLength, SRTP_AES_128_KEY_LEN, 0);
    case SRTP_AES_ICM_256_KEY_LEN_WSALT: return aesAlloc(cipher, &icm256Type, keyLength, SRTP_AES_256_KEY_LEN, 0);
    default: return srtp_err_status_bad_param;
    }
}

/* key: the AES key, then the 14-octet salt. */
static srtp_err_status_t icmInit(void *opaque, const uint8_t *key) {
    AESState *state = opaque;
    memset(state->offset, 0, BLOCK);
    memcpy(state->offset, key + state->keySize, SALT_LENGTH);
    const EVP_CIPHER *aes = state->keySize == SRTP_AES_256_KEY_LEN ? EVP_aes_256_ctr() : EVP_aes_128_ctr();
    if (EVP_CIPHER_CTX_reset(state->context) != 1) return srtp_err_status_init_fail;
    if (EVP_EncryptInit_ex(state->context, aes, NULL, key, NULL) != 1) return srtp_err_status_init_fail;
    return srtp_err_status_ok;
}

/* The counter is the offset XOR the 16-octet IV libsrtp2 forms from the SSRC and packet index. */
static srtp_err_status_t icmSetIV(void *opaque, uint8_t *iv, srtp_cipher_direction_t direction) {
    (void)direction;
    AESState *state = opaque;
    unsigned char counter[BLOCK];
    for (int i = 0; i < BLOCK; i++) counter[i] = state->offset[i] ^ iv[i];
    if (EVP_EncryptInit_ex(state->context, NULL, NULL, NULL, counter) != 1) return srtp_err_status_cipher_fail;
    return srtp_err_status_ok;
}

/* Encryption and decryption are the same XOR with the key stream. */
static srtp_err_status_t icmEncrypt(void *opaque, uint8_t *buffer, unsigned int *length) {
    AESState *state = opaque;
    if (*length > (unsigned int)0x7fffffff) return srtp_err_status_bad_param;
    int written = 0;
    if (EVP_EncryptUpdate(state->context, buffer, &written, buffer, (int)*length) != 1) {
        return srtp_err_status_cipher_fail;
    }
    *length = (unsigned int)written;
    return srtp_err_status_ok;
}

/* RFC 3711 appendix B.2: the first two key stream blocks for this key and salt. */
static const uint8_t icm128Key[SRTP_AES_ICM_128_KEY_LEN_WSALT] = {
    0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c,
    0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd,
};
static uint8_t icm128IV[BLOCK];
static const uint8_t icmZeros[32];
static const uint8_t icm128Stream[32] = {
    0xe0, 0x3e, 0xad, 0x09, 0x35, 0xc9, 0x5e, 0x80, 0xe1, 0x66, 0xb1, 0x6d, 0xd9, 0x2b, 0x4e, 0xb4,
    0xd2, 0x35, 0x13, 0x16, 0x2b, 0x02, 0xd0, 0xf7, 0x2a, 0x43, 0xa2, 0xfe, 0x4a, 0x5f, 0x97, 0xab,
};
static const srtp_cipher_test_case_t icm128Test = {
    SRTP_AES_ICM_128_KEY_LEN_WSALT, icm128Key, icm128IV, 32, icmZeros, 32, icm128Stream, 0, NULL, 0, NULL,
};

/* RFC 6188 section 7.1. */
static const uint8_t icm256Key[SRTP_AES_ICM_256_KEY_LEN_WSALT] = {
    0x57, 0xf8, 0x2f, 0xe3, 0x61, 0x3f, 0xd1, 0x70, 0xa8, 0x5e, 0xc9, 0x3c, 0x40, 0xb1, 0xf0, 0x92,
    0x2e, 0xc4, 0xcb, 0x0d, 0xc0, 0x25, 0xb5, 0x82, 0x72, 0x14, 0x7c, 0xc4, 0x38, 0x94, 0x4a, 0x98,
    0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd,
};
static uint8_t icm256IV[BLOCK];
static const uint8_t icm256Stream[32] = {
    0x92, 0xbd, 0xd2, 0x8a, 0x93, 0xc3, 0xf5, 0x25, 0x11, 0xc6, 0x77, 0xd0, 0x8b, 0x55, 0x15, 0xa4,
    0x9d, 0xa7, 0x1b, 0x23, 0x78, 0xa8, 0x54, 0xf6, 0x70, 0x50, 0x75, 0x6d, 0xed, 0x16, 0x5b, 0xac,
};
static const srtp_cipher_test_case_t icm256Test = {
    SRTP_AES_ICM_256_KEY_LEN_WSALT, icm256Key, icm256IV, 32, icmZeros, 32, icm256Stream, 0, NULL, 0, NULL,
};

static const srtp_cipher_type_t icm128Type = {
    icmAlloc, aesDealloc, icmInit, NULL, icmEncrypt, icmEncrypt, icmSetIV, NULL,
    "AES-128 integer counter mode (OpenSSL)", &icm128Test, SRTP_AES_ICM_128,
};
static const srtp_cipher_type_t icm256Type = {
    icmAlloc, aesDealloc, icmInit, NULL, icmEncrypt, icmEncrypt, icmSetIV, NULL,
    "AES-256 integer counter mode (OpenSSL)", &icm256Test, SRTP_AES_ICM_256,
};

/* MARK: AES-GCM (RFC 7714) */

static srtp_err_status_t gcmAlloc(srtp_cipher_t **cipher, int keyLength, int tagLength) {
    if (tagLength != 16 && tagLength != 8) return srtp_err_status_bad_param;
    switch (keyLength) {
    case SRTP_AES_GCM_128_KEY_LEN_WSALT:
        return aesAlloc(cipher, &gcm128Type, keyLength, SRTP_AES_128_KEY_LEN, tagLength);
    case SRTP_AES_GCM_256_KEY_LEN_WSALT:
        return aesAlloc(cipher, &gcm256Type, keyLength, SRTP_AES_256_KEY_LEN, tagLength);
    default:
        return srtp_err_status_bad_param;
    }
}

/* key: the AES key (the salt after it is libsrtp2's: it forms each packet's IV itself). */
static srtp_err_status_t gcmInit(void *opaque, const uint8_t *key) {
    AESState *state = opaque;
    const EVP_CIPHER *aes = state->keySize == SRTP_AES_256_KEY_LEN ? EVP_aes_256_gcm() : EVP_aes_128_gcm();
    if (EVP_CIPHER_CTX_reset(state->context) != 1
        || EVP_CipherInit_ex(state->context, aes, NULL, NULL, NULL, 1) != 1
        || EVP_CIPHER_CTX_ctrl(state->context, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) != 1
        || EVP_CipherInit_ex(state->context, NULL, NULL, key, NULL, -1) != 1) {
        return srtp_err_status_init_fail;
    }
    return srtp_err_status_ok;
}

/* The 12-octet IV; the direction chooses sealing or opening. */
static srtp_err_status_t gcmSetIV(void *opaque, uint8_t *iv, srtp_cipher_direction_t direction) {
    AESState *state = opaque;
    if (direction != srtp_direction_encrypt && direction != srtp_direction_decrypt) return srtp_err_status_bad_param;
    int encrypt = direction == srtp_direction_encrypt ? 1 : 0;
    if (EVP_CipherInit_ex(state->context, NULL, NULL, NULL, iv, encrypt) != 1) return srtp_err_status_init_fail;
    return srtp_err_status_ok;
}

static srtp_err_status_t gcmSetAAD(void *opaque, const uint8_t *aad, uint32_t length) {
    AESState *state = opaque;
    if (length > 0x7fffffffu) return srtp_err_status_bad_param;
    int written = 0;
    if (EVP_CipherUpdate(state->context, NULL, &written, aad, (int)length) != 1) return srtp_err_status_algo_fail;
    return srtp_err_status_ok;
}

/* Seals in place; the tag comes from gcmGetTag. */
static srtp_err_status_t gcmEncrypt(void *opaque, uint8_t *buffer, unsigned int *length) {
    AESState *state = opaque;
    if (*length > 0x7fffffffu) return srtp_err_status_bad_param;
    int written = 0;
    if (EVP_CipherUpdate(state->context, buffer, &written, buffer, (int)*length) != 1) {
        return srtp_err_status_cipher_fail;
    }
    *length = (unsigned int)written;
    return srtp_err_status_ok;
}

static srtp_err_status_t gcmGetTag(void *opaque, uint8_t *tag, uint32_t *length) {
    AESState *state = opaque;
    unsigned char none[16];
    int written = 0;
    if (EVP_CipherFinal_ex(state->context, none, &written) != 1
        || EVP_CIPHER_CTX_ctrl(state->context, EVP_CTRL_GCM_GET_TAG, state->tagLength, tag) != 1) {
        return srtp_err_status_algo_fail;
    }
    *length = (uint32_t)state->tagLength;
    return srtp_err_status_ok;
}

/* Opens in place: the buffer ends with the tag, which must match (else srtp_err_status_auth_fail). */
static srtp_err_status_t gcmDecrypt(void *opaque, uint8_t *buffer, unsigned int *length) {
    AESState *state = opaque;
    if (*length < (unsigned int)state->tagLength || *length > 0x7fffffffu) return srtp_err_status_bad_param;
    int sealed = (int)*length - state->tagLength;
    int written = 0;
    unsigned char none[16];
    if (EVP_CipherUpdate(state->context, buffer, &written, buffer, sealed) != 1) return srtp_err_status_cipher_fail;
    if (EVP_CIPHER_CTX_ctrl(state->context, EVP_CTRL_GCM_SET_TAG, state->tagLength, buffer + sealed) != 1
        || EVP_CipherFinal_ex(state->context, none, &written) != 1) {
        return srtp_err_status_auth_fail;
    }
    *length = (unsigned int)sealed;
    return srtp_err_status_ok;
}

/* The GCM specification's test case 4 (McGrew and Viega), with a 12-octet salt after the key as libsrtp2 expects,
 * and the same data under the key twice over for AES-256. */
static const uint8_t gcm128Key[SRTP_AES_GCM_128_KEY_LEN_WSALT] = {
    0xfe, 0xff, 0xe9, 0x92, 0x86, 0x65, 0x73, 0x1c, 0x6d, 0x6a, 0x8f, 0x94, 0x67, 0x30, 0x83, 0x08,
    0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce, 0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88,
};
static const uint8_t gcm256Key[SRTP_AES_GCM_256_KEY_LEN_WSALT] = {
    0xfe, 0xff, 0xe9, 0x92, 0x86, 0x65, 0x73, 0x1c, 0x6d, 0x6a, 0x8f, 0x94, 0x67, 0x30, 0x83, 0x08,
    0xfe, 0xff, 0xe9, 0x92, 0x86, 0x65, 0x73, 0x1c, 0x6d, 0x6a, 0x8f, 0x94, 0x67, 0x30, 0x83, 0x08,
    0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce, 0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88,
};
static uint8_t gcm128IV[12] = {
    0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce, 0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88,
};
static uint8_t gcm256IV[12] = {
    0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce, 0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88,
};
static const uint8_t gcmPlaintext[60] = {
    0xd9, 0x31, 0x32, 0x25, 0xf8, 0x84, 0x06, 0xe5, 0xa5, 0x59, 0x09, 0xc5, 0xaf, 0xf5, 0x26, 0x9a,
    0x86, 0xa7, 0xa9, 0x53, 0x15, 0x34, 0xf7, 0xda, 0x2e, 0x4c, 0x30, 0x3d, 0x8a, 0x31, 0x8a, 0x72,
    0x1c, 0x3c, 0x0c, 0x95, 0x95, 0x68, 0x09, 0x53, 0x2f, 0xcf, 0x0e, 0x24, 0x49, 0xa6, 0xb5, 0x25,
    0xb1, 0x6a, 0xed, 0xf5, 0xaa, 0x0d, 0xe6, 0x57, 0xba, 0x63, 0x7b, 0x39,
};
static const uint8_t gcmAAD[20] = {
    0xfe, 0xed, 0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef, 0xfe, 0xed, 0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef,
    0xab, 0xad, 0xda, 0xd2,
};
static const uint8_t gcm128Sealed[76] = {
    0x42, 0x83, 0x1e, 0xc2, 0x21, 0x77, 0x74, 0x24, 0x4b, 0x72, 0x21, 0xb7, 0x84, 0xd0, 0xd4, 0x9c,
    0xe3, 0xaa, 0x21, 0x2f, 0x2c, 0x02, 0xa4, 0xe0, 0x35, 0xc1, 0x7e, 0x23, 0x29, 0xac, 0xa1, 0x2e,
    0x21, 0xd5, 0x14, 0xb2, 0x54, 0x66, 0x93, 0x1c, 0x7d, 0x8f, 0x6a, 0x5a, 0xac, 0x84, 0xaa, 0x05,
    0x1b, 0xa3, 0x0b, 0x39, 0x6a, 0x0a, 0xac, 0x97, 0x3d, 0x58, 0xe0, 0x91, 0x5b, 0xc9, 0x4f, 0xbc,
    0x32, 0x21, 0xa5, 0xdb, 0x94, 0xfa, 0xe9, 0x5a, 0xe7, 0x12, 0x1a, 0x47,
};
static const uint8_t gcm256Sealed[76] = {
    0x52, 0x2d, 0xc1, 0xf0, 0x99, 0x56, 0x7d, 0x07, 0xf4, 0x7f, 0x37, 0xa3, 0x2a, 0x84, 0x42, 0x7d,
    0x64, 0x3a, 0x8c, 0xdc, 0xbf, 0xe5, 0xc0, 0xc9, 0x75, 0x98, 0xa2, 0xbd, 0x25, 0x55, 0xd1, 0xaa,
    0x8c, 0xb0, 0x8e, 0x48, 0x59, 0x0d, 0xbb, 0x3d, 0xa7, 0xb0, 0x8b, 0x10, 0x56, 0x82, 0x88, 0x38,
    0xc5, 0xf6, 0x1e, 0x63, 0x93, 0xba, 0x7a, 0x0a, 0xbc, 0xc9, 0xf6, 0x62, 0x76, 0xfc, 0x6e, 0xce,
    0x0f, 0x4e, 0x17, 0x68, 0xcd, 0xdf, 0x88, 0x53, 0xbb, 0x2d, 0x55, 0x1b,
};
static const srtp_cipher_test_case_t gcm128Test = {
    SRTP_AES_GCM_128_KEY_LEN_WSALT, gcm128Key, gcm128IV, 60, gcmPlaintext, 76, gcm128Sealed, 20, gcmAAD, 16, NULL,
};
static const srtp_cipher_test_case_t gcm256Test = {
    SRTP_AES_GCM_256_KEY_LEN_WSALT, gcm256Key, gcm256IV, 60, gcmPlaintext, 76, gcm256Sealed, 20, gcmAAD, 16, NULL,
};

static const srtp_cipher_type_t gcm128Type = {
    gcmAlloc, aesDealloc, gcmInit, gcmSetAAD, gcmEncrypt, gcmDecrypt, gcmSetIV, gcmGetTag,
    "AES-128 GCM (OpenSSL)", &gcm128Test, SRTP_AES_GCM_128,
};
static const srtp_cipher_type_t gcm256Type = {
    gcmAlloc, aesDealloc, gcmInit, gcmSetAAD, gcmEncrypt, gcmDecrypt, gcmSetIV, gcmGetTag,
    "AES-256 GCM (OpenSSL)", &gcm256Test, SRTP_AES_GCM_256,
};

/* MARK: HMAC-SHA1 */

typedef struct {
    SHA_CTX inner;   /* after the key XOR ipad */
    SHA_CTX outer;   /* after the key XOR opad */
    SHA_CTX running; /* the message so far */
} HMACState;

static const srtp_auth_type_t hmacType;

static srtp_err_status_t hmacAlloc(srtp_auth_t **auth, int keyLength, int tagLength) {
    if (keyLength < 0 || keyLength > SHA1_BLOCK || tagLength < 0 || tagLength > SHA1_LENGTH) {
        return srtp_err_status_bad_param;
    }
    srtp_auth_t *made = calloc(1, sizeof(srtp_auth_t));
    HMACState *state = calloc(1, sizeof(HMACState));
    if (made == NULL || state == NULL) {
        free(made);
        free(state);
        return srtp_err_status_alloc_fail;
    }
    made->type = &hmacType;
    made->state = state;
    made->out_len = tagLength;
    made->key_len = keyLength;
    made->prefix_len = 0;
    *auth = made;
    return srtp_err_status_ok;
}

static srtp_err_status_t hmacDealloc(srtp_auth_t *auth) {
    if (auth == NULL) return srtp_err_status_bad_param;
    if (auth->state != NULL) {
        OPENSSL_cleanse(auth->state, sizeof(HMACState));
        free(auth->state);
    }
    free(auth);
    return srtp_err_status_ok;
}

static srtp_err_status_t hmacInit(void *opaque, const uint8_t *key, int keyLength) {
    HMACState *state = opaque;
    if (keyLength < 0 || keyLength > SHA1_BLOCK) return srtp_err_status_bad_param;
    unsigned char inner[SHA1_BLOCK], outer[SHA1_BLOCK];
    for (int i = 0; i < SHA1_BLOCK; i++) {
        unsigned char byte = i < keyLength ? key[i] : 0;
        inner[i] = byte ^ 0x36;
        outer[i] = byte ^ 0x5c;
    }
    int ok = SHA1_Init(&state->inner) && SHA1_Update(&state->inner, inner, SHA1_BLOCK)
        && SHA1_Init(&state->outer) && SHA1_Update(&state->outer, outer, SHA1_BLOCK);
    OPENSSL_cleanse(inner, sizeof inner);
    OPENSSL_cleanse(outer, sizeof outer);
    if (!ok) return srtp_err_status_auth_fail;
    state->running = state->inner;
    return srtp_err_status_ok;
}

static srtp_err_status_t hmacStart(void *opaque) {
    HMACState *state = opaque;
    state->running = state->inner;
    return srtp_err_status_ok;
}

static srtp_err_status_t hmacUpdate(void *opaque, const uint8_t *buffer, int length) {
    HMACState *state = opaque;
    if (length < 0) return srtp_err_status_bad_param;
    return SHA1_Update(&state->running, buffer, (size_t)length) ? srtp_err_status_ok : srtp_err_status_auth_fail;
}

static srtp_err_status_t hmacCompute(void *opaque, const uint8_t *buffer, int length, int tagLength, uint8_t *tag) {
    HMACState *state = opaque;
    if (length < 0 || tagLength < 0 || tagLength > SHA1_LENGTH) return srtp_err_status_bad_param;
    unsigned char digest[SHA1_LENGTH];
    SHA_CTX outer = state->outer;
    int ok = SHA1_Update(&state->running, buffer, (size_t)length) && SHA1_Final(digest, &state->running)
        && SHA1_Update(&outer, digest, SHA1_LENGTH) && SHA1_Final(digest, &outer);
    if (!ok) return srtp_err_status_auth_fail;
    memcpy(tag, digest, (size_t)tagLength);
    return srtp_err_status_ok;
}

/* RFC 2202 section 3, test case 1. */
static const uint8_t hmacTestKey[20] = {
    0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b,
};
static const uint8_t hmacTestData[8] = { 'H', 'i', ' ', 'T', 'h', 'e', 'r', 'e' };
static const uint8_t hmacTestTag[20] = {
    0xb6, 0x17, 0x31, 0x86, 0x55, 0x05, 0x72, 0x64, 0xe2, 0x8b, 0xc0, 0xb6, 0xfb, 0x37, 0x8c, 0x8e, 0xf1, 0x46, 0xbe, 0x00,
};
static const srtp_auth_test_case_t hmacTest = { 20, hmacTestKey, 8, hmacTestData, 20, hmacTestTag, NULL };

static const srtp_auth_type_t hmacType = {
    hmacAlloc, hmacDealloc, hmacInit, hmacCompute, hmacUpdate, hmacStart,
    "HMAC-SHA1 (OpenSSL)", &hmacTest, SRTP_HMAC_SHA1,
};

/* MARK: Installation */

int CSRTPCrypto_installOpenSSL(void) {
    srtp_err_status_t status = srtp_replace_cipher_type(&icm128Type, SRTP_AES_ICM_128);
    if (status == srtp_err_status_ok) status = srtp_replace_cipher_type(&icm256Type, SRTP_AES_ICM_256);
    if (status == srtp_err_status_ok) status = srtp_replace_cipher_type(&gcm128Type, SRTP_AES_GCM_128);
    if (status == srtp_err_status_ok) status = srtp_replace_cipher_type(&gcm256Type, SRTP_AES_GCM_256);
    if (status == srtp_err_status_ok) status = srtp_replace_auth_type(&hmacType, SRTP_HMAC_SHA1);
    return (int)status;
}
