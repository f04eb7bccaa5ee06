// A pure file that reaches up a layer: the include-rule check must refuse it.
#include "sim/tlm/memory.h"
