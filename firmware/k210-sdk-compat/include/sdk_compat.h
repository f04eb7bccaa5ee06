/* Forced into every SDK and application source (-include): what newlib's headers brought in
   indirectly and picolibc's do not (iomem.c uses _lock_t without including <sys/lock.h>). */
#pragma once
#ifndef __ASSEMBLER__
#include <sys/lock.h>
#endif
