/* Included first in the nncase v0.2 kernels' translation unit (-include). The C++ library headers
 * used there are Debian's riscv64-linux-gnu ones (no bare-metal libstdc++ exists in Debian), whose
 * glibc <bits/setjmp.h> knows only the lp64d and lp64 ABIs and stops at the SDK's lp64f. Nothing
 * here uses setjmp: the type is declared once, the header skipped. <ostream> stands in for the
 * <iostream> nncase's binary_writer.h includes (-D_GLIBCXX_IOSTREAM), whose static initialiser
 * would need the hosted library. */
#define _RISCV_BITS_SETJMP_H 1
typedef struct __jmp_buf_internal_tag {
    long __pc;
    long __regs[12];
    long __sp;
    float __fpregs[12];
} __jmp_buf[1];
#ifdef __cplusplus
#include <ostream>
#endif
