// Breaks the rule on purpose: a model includes another model (a platform composes them).
#pragma once
#include "models/k210_dma/dmac_regs.h"
#include "models/k210_kpu/kpu.h"
