// A platform that reaches up into the program: the include rules refuse it.
#pragma once
#include "app/app.h"
