// The kmodel runtime may not know the SoC: the include-rule check must refuse it.
#include "platforms/k210/soc/driver.h"
