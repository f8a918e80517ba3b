#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/srtp.h>
#include <openssl/tls1.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/x509.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <sys/time.h>
#include <stdint.h>

/*
 * Why this shim exists: the OpenSSL calls below are macros (SSL_ctrl/BIO_ctrl wrappers) or variadic functions, which
 * Swift cannot call. Each is a one-line static inline function with the module prefix; nothing else lives here.
 * OpenSSL 3.0 (Debian 12's libssl-dev).
 */

/* DTLSv1_get_timeout (macro over SSL_ctrl): 1 and the time left when a retransmission timer runs, else 0. */
static inline int COpenSSL_DTLS_get_timeout(SSL *ssl, long *seconds, long *microseconds) {
    struct timeval tv = {0, 0};
    int running = (int)DTLSv1_get_timeout(ssl, &tv);
    *seconds = (long)tv.tv_sec;
    *microseconds = (long)tv.tv_usec;
    return running;
}

/* DTLSv1_handle_timeout (macro over SSL_ctrl): 1 when a flight was retransmitted, 0 when not due, -1 on error. */
static inline int COpenSSL_DTLS_handle_timeout(SSL *ssl) { return (int)DTLSv1_handle_timeout(ssl); }

/* SSL_CTX_set_min_proto_version / SSL_CTX_set_max_proto_version (macros): pin DTLS 1.2. */
static inline int COpenSSL_CTX_pin_DTLS_1_2(SSL_CTX *ctx) {
    return SSL_CTX_set_min_proto_version(ctx, DTLS1_2_VERSION) == 1
        && SSL_CTX_set_max_proto_version(ctx, DTLS1_2_VERSION) == 1;
}

/* BIO_set_mem_eof_return (macro): an empty memory BIO reads as "retry", not end of file. */
static inline void COpenSSL_BIO_set_mem_eof_retry(BIO *bio) { (void)BIO_set_mem_eof_return(bio, -1); }

/* SSL_set_options + SSL_set_mtu is how DTLS is told its MTU with a BIO that cannot query one. */
static inline void COpenSSL_SSL_set_fixed_mtu(SSL *ssl, long mtu) {
    SSL_set_options(ssl, SSL_OP_NO_QUERY_MTU);
    (void)DTLS_set_link_mtu(ssl, mtu);
}

/* SSL_OP_NO_TICKET (a macro of macros): no session tickets; DTLS-SRTP associations are never resumed, and the
 * ticket would only lengthen the server's last flight. */
static inline void COpenSSL_CTX_disable_tickets(SSL_CTX *ctx) { (void)SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET); }

/* SSL_get_ex_new_index (macro over CRYPTO_get_ex_new_index). */
static inline int COpenSSL_SSL_get_ex_new_index(void) { return SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL); }

/* EVP_EC_gen (macro over the variadic EVP_PKEY_Q_keygen): a fresh EC key on the named curve. */
static inline EVP_PKEY *COpenSSL_EC_generate(const char *curve) { return EVP_EC_gen(curve); }

/* The SSL* a certificate-verification callback runs for (X509_STORE_CTX ex data). */
static inline SSL *COpenSSL_SSL_from_store(X509_STORE_CTX *store) {
    return (SSL *)X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
}

#endif
