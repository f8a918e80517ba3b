/*
 * malloc_count.c: an LD_PRELOAD shim that counts heap allocations, for the SRTP benchmark.
 *
 * Why a C shim: the question "does protecting a packet allocate?" must cover every allocation in the process,
 * including those made inside libsrtp and NSS, so it has to sit under malloc itself. It forwards to glibc's
 * __libc_* entry points and counts calls to malloc, calloc, realloc, memalign, posix_memalign, aligned_alloc,
 * valloc and pvalloc. Programs read the count with dlsym(RTLD_DEFAULT, "malloc_count_total") before and after
 * their timed loop; without the shim the symbol is absent and they report "n/a".
 *
 * Build: gcc -O2 -shared -fPIC -o malloc_count.so malloc_count.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static _Atomic uint64_t malloc_count_calls;

static inline void malloc_count_bump(void) {
    atomic_fetch_add_explicit(&malloc_count_calls, 1, memory_order_relaxed);
}

/* The number of allocation calls since the process started. */
uint64_t malloc_count_total(void) {
    return atomic_load_explicit(&malloc_count_calls, memory_order_relaxed);
}

void *malloc(size_t size) {
    malloc_count_bump();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    malloc_count_bump();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    malloc_count_bump();
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    malloc_count_bump();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    malloc_count_bump();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    malloc_count_bump();
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) {
        return EINVAL;
    }
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) {
        return ENOMEM;
    }
    *result = pointer;
    return 0;
}

void *valloc(size_t size) {
    malloc_count_bump();
    return __libc_memalign(4096, size);
}

void *pvalloc(size_t size) {
    malloc_count_bump();
    return __libc_memalign(4096, (size + 4095) & ~(size_t)4095);
}

void free(void *pointer) {
    __libc_free(pointer);
}
