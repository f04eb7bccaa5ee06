/* The Kendryte toolchain's newlib declares _lock_t here; the SDK's lib/bsp/locks.c implements the
   lock functions on it and lib/drivers/iomem.c uses the type. picolibc has no such header. */
#pragma once
typedef long _lock_t;
