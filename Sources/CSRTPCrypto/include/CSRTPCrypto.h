#ifndef CSRTPCRYPTO_H
#define CSRTPCRYPTO_H

/*
 * libsrtp2's AES counter mode (AES-128 and AES-256 ICM), AES-GCM (128 and 256) and HMAC-SHA1 on OpenSSL's libcrypto, installed into
 * libsrtp2's crypto kernel with its own srtp_replace_cipher_type / srtp_replace_auth_type. libsrtp2 keeps the whole
 * of SRTP (key derivation, packet formats, replay protection); only these primitives change. Why: Debian builds
 * libsrtp2 against NSS, whose HMAC-SHA1 costs about 5 us and 14 heap allocations per 1200-byte packet and whose GCM
 * 5 allocations (a context per call); libwebrtc links libsrtp with OpenSSL's (BoringSSL's) crypto, as libsrtp2's own --enable-openssl build does.
 *
 * Call once, after srtp_init and before any srtp_create. Each type passes libsrtp2's self-test (RFC 3711 B.2,
 * RFC 6188 7.1, the GCM specification's test case 4 and RFC 2202 vectors) before it replaces anything; a type that fails leaves libsrtp2's own in place.
 *
 * Returns 0 when all five types were replaced, otherwise the first failing srtp_err_status_t.
 */
int CSRTPCrypto_installOpenSSL(void);

#endif
