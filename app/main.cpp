// npusim entry point. SystemC prints its banner while it starts, so main() silences it before
// handing over to the kernel, which calls sc_main().
#include <cstdlib>

#include <systemc>

#include "app/app.h"
#include "sim/core/signal_cleanup.h"

int sc_main(int argc, char* argv[]) {
    return npu::app::main(argc, argv);
}

int main(int argc, char* argv[]) {
    ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    npu::sim::install_signal_cleanup();  // an interrupted run leaves no staging folder
    return sc_core::sc_elab_and_sim(argc, argv);
}
