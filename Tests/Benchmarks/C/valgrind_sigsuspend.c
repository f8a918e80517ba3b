/*
 * valgrind_sigsuspend.c: an LD_PRELOAD shim that lets Valgrind 3.19 (Debian 12) run rtc-h264, for the sender's
 * instruction-count benchmark (`run-sender.sh instructions`). Profiling only; never linked into the package.
 *
 * Why a C shim: Valgrind's rt_sigsuspend wrapper removes its own signal from the mask in place, and libdispatch's
 * main thread (Swift's async main parks there) passes a mask in read-only memory, so Valgrind faults and gives up
 * ("the 'impossible' happened", SIGSEGV in the tool). Calling the system call with a copy on the stack gives the
 * kernel the same mask.
 *
 * Build: gcc -O2 -shared -fPIC -o valgrind_sigsuspend.so valgrind_sigsuspend.c
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
}
