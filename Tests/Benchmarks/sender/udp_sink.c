/*
 * A UDP sink for the sender benchmarks: binds 127.0.0.1:PORT, reads and discards datagrams (recvmmsg, 64 at a
 * time) until SIGINT/SIGTERM, then prints "datagrams=N bytes=M" on stdout. It does nothing else, so the machine's
 * second core is left to the process being measured.
 *
 * Build: gcc -O2 -o udp_sink udp_sink.c
 * Usage: udp_sink PORT
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH 64
#define DATAGRAM_CAPACITY 2048

static volatile sig_atomic_t stopping = 0;
static void on_signal(int sig) { (void)sig; stopping = 1; }

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s PORT\n", argv[0]); return 2; }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) { perror("socket"); return 1; }
    int rcvbuf = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1])) };
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0) { perror("bind"); return 1; }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;  /* no SA_RESTART: recvmmsg returns EINTR and the loop ends */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    static unsigned char buffers[BATCH][DATAGRAM_CAPACITY];
    struct iovec iov[BATCH];
    struct mmsghdr msgs[BATCH];
    for (int i = 0; i < BATCH; i++) {
        iov[i].iov_base = buffers[i];
        iov[i].iov_len = DATAGRAM_CAPACITY;
        memset(&msgs[i], 0, sizeof msgs[i]);
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    long long datagrams = 0, bytes = 0;
    while (!stopping) {
        int n = recvmmsg(fd, msgs, BATCH, MSG_WAITFORONE, NULL);
        if (n < 0) {
            if (errno == EINTR) continue;
            perror("recvmmsg");
            return 1;
        }
        datagrams += n;
        for (int i = 0; i < n; i++) bytes += msgs[i].msg_len;
    }
    printf("datagrams=%lld bytes=%lld\n", datagrams, bytes);
    return 0;
}
