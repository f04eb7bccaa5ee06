"""npusim from Python: run programs on the simulated NPUs, numpy in and out.

    import npusim
    p = npusim.Platform()                      # the built-in K210 (configs/k210.yaml)
    r = p.run("face_detect_v3.kmodel", image)  # a timed run: outputs, layers, totals, report
    r.outputs[0], r.totals["inference_ms"], r.layers[3]["time_us"]

Functional runs (``timed=False``) run in this process; timed runs run the npusim program in a
process of their own (SystemC elaborates once per process) and read back what it wrote. Both give
the same Result. Estimates, compile, untimed K210 regressions, infer and the KL730 layouts run
in this process; aipp (timed) runs the program. Errors raise npusim.Error with the program's
message. docs/python.md.
"""

from ._npusim import Error, version as _version
from ._platform import Estimate, Platform, Result
from ._tools import Program, Regression, aipp, assert_regress, compile, infer, regress
from . import layout

__version__ = _version()
__all__ = ["Platform", "Result", "Estimate", "Program", "Regression", "Error", "compile",
           "regress", "assert_regress", "infer", "aipp", "layout", "__version__"]
