"""npusim's pytest plugin (installed with the package as a pytest11 entry point): fixtures for
tests that run programs on a simulated platform.

    def test_my_model(npusim_platform):
        r = npusim_platform.run("my.kmodel", x, timed=False)
        assert r.outputs[0].argmax() == 3

Set NPUSIM_PLATFORM to a platform YAML to run every such test on it (default: the built-in K210).
"""

import os

import pytest

from ._platform import Platform


@pytest.fixture
def npusim_platform():
    """The platform NPUSIM_PLATFORM names (a YAML file), else the built-in K210."""
    return Platform(os.environ.get("NPUSIM_PLATFORM") or None)
