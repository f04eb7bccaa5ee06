// Built only by the layering test: a pure target that includes SystemC must not compile.
#include <systemc>

int layering_probe() {
    return 0;
}
