#ifndef CSRTP_SHIM_H
#define CSRTP_SHIM_H
#include <srtp2/srtp.h>
#include <dlfcn.h>
#include <stddef.h>

/*
 * Why this shim exists: libsrtp2 built with NSS (Debian's) opens an NSS context for every cipher and auth context it
 * allocates (NSS_InitContext, "the equivalent of NSS_NoDB_Init") and closes it when the context is freed. When the
 * last one closes, NSS unloads its softoken (libsoftokn3 with libsqlite3 and libfreeblpriv3) and loads it again for
 * the next: 14 times during srtp_init's self-tests and session creation alone, measured at 24 ms of CPU per process.
 * Holding one context of our own for the life of the process keeps NSS loaded, so every later init is a reference
 * count. NSS_InitContext is looked up at run time (libsrtp2 already loaded libnss3), so that a libsrtp2 built with
 * OpenSSL or its built-in crypto needs nothing and this does nothing.
 *
 * Flags as libsrtp2's own call (crypto/cipher/aes_icm_nss.c); values from <nss.h> (NSS 3.87):
 * NSS_INIT_READONLY 0x1, NSS_INIT_NOCERTDB 0x2, NSS_INIT_NOMODDB 0x4, NSS_INIT_FORCEOPEN 0x8,
 * NSS_INIT_OPTIMIZESPACE 0x20.
 *
 * Returns 1 when a context is held, 0 when libsrtp2 does not use NSS, -1 when NSS refused (libsrtp2 then reports
 * its own error at srtp_init).
 */
static inline int CSRTP_holdNSSContext(void) {
    typedef void *(*CSRTP_NSSInitContext)(const char *, const char *, const char *, const char *, void *, unsigned int);
    CSRTP_NSSInitContext initContext = (CSRTP_NSSInitContext)dlsym(RTLD_DEFAULT, "NSS_InitContext");
    if (initContext == NULL) return 0;
    const unsigned int flags = 0x1u | 0x2u | 0x4u | 0x8u | 0x20u;
    return initContext("", "", "", "", NULL, flags) != NULL ? 1 : -1;
}

#endif
