// npusim entry point. SystemC prints its banner while it starts, so main() silences it before
// handing over to the kernel, which calls sc_main().
#include <cstdlib>

#include <systemc>

#include "app/app.h"

int sc_main(int argc, char* argv[]) {
    return npu::app::main(argc, argv);
}

int main(int argc, char* argv[]) {
    ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    return sc_core::sc_elab_and_sim(argc, argv);
}
