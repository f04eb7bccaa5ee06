# A counted loop for the hart's tests: 1 + 2 * 1000 + 1 instructions to the wfi, with 16-bit
# (c.addi) and 32-bit instructions mixed, and a data word, linked at the K210's SRAM by loop.ld.
    .section .text.start, "ax"
    .globl _start
_start:
    li t0, 1000
loop:
    addi t0, t0, -1
    bnez t0, loop
done:
    wfi
    j done

    .data
    .globl counter
    .balign 8
counter:
    .dword 42
