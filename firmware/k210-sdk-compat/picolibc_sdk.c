/* picolibc's stdio, heap and exit through the SDK's own ecall handlers (lib/bsp/syscalls.c), as
   newlib's libgloss reaches them on the Kendryte toolchain: the syscall number in a7. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <machine/syscall.h>

static long sdk_ecall(long n, long a0, long a1, long a2) {
    register long r0 __asm__("a0") = a0;
    register long r1 __asm__("a1") = a1;
    register long r2 __asm__("a2") = a2;
    register long r7 __asm__("a7") = n;
    __asm__ volatile("ecall" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r7) : "memory");
    return r0;
}

static int sdk_putc(char c, FILE *f) {
    (void)f;
    return sdk_ecall(SYS_write, 1, (long)&c, 1) == 1 ? (unsigned char)c : EOF;
}

static int sdk_getc(FILE *f) {
    (void)f;
    char c;
    return sdk_ecall(SYS_read, 0, (long)&c, 1) == 1 ? (unsigned char)c : EOF;
}

static FILE sdk_stdio = FDEV_SETUP_STREAM(sdk_putc, sdk_getc, NULL, _FDEV_SETUP_RW);
FILE *const stdin = &sdk_stdio;
FILE *const stdout = &sdk_stdio;
FILE *const stderr = &sdk_stdio;

void *sbrk(ptrdiff_t incr) {
    static uintptr_t heap_end;
    if (heap_end == 0) {
        heap_end = (uintptr_t)sdk_ecall(SYS_brk, 0, 0, 0);
    }
    const uintptr_t old = heap_end;
    if ((uintptr_t)sdk_ecall(SYS_brk, (long)(old + incr), 0, 0) != old + incr) {
        errno = ENOMEM;
        return (void *)-1;
    }
    heap_end = old + incr;
    return (void *)old;
}

void _exit(int code) {
    sdk_ecall(SYS_exit, code, 0, 0);
    for (;;) {
    }
}

/* picolibc's raise() (reached by abort(), so by a failed assert, as kpu.c has) calls these; the
   Kendryte toolchain's libgloss makes them ecalls, which the SDK answers with sys_nosys. */
int getpid(void) {
    return (int)sdk_ecall(SYS_getpid, 0, 0, 0);
}

int kill(int pid, int sig) {
    return (int)sdk_ecall(SYS_kill, pid, sig, 0);
}
