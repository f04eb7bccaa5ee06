"""pip install . — the npusim Python package (python/npusim), built with the project's CMake.

    /usr/bin/python3 -m pip install --no-build-isolation --break-system-packages .

builds the release preset (scripts/build: the Debian packages that are missing first) and puts
the package, its compiled module, the npusim program and the video module together in
site-packages/npusim. With NPUSIM_PREBUILT=DIR (a build folder of this checkout, e.g. build/dev)
it takes the compiled files from there instead of building. docs/python.md.
"""

import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))
PREBUILT = os.environ.get("NPUSIM_PREBUILT", "")
BUILT = os.path.abspath(PREBUILT) if PREBUILT else os.path.join(ROOT, "build", "release")


def version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("project(npusim VERSION "):
                return line.split()[2]
    raise RuntimeError("CMakeLists.txt names no version")


class BuildWithCMake(build_py):
    """The release build, then the compiled files beside the package's Python files."""

    def run(self):
        if not PREBUILT:
            subprocess.check_call([os.path.join(ROOT, "scripts", "build"), "release",
                                   "npusim_python"])
        super().run()
        dest = os.path.join(self.build_lib, "npusim")
        os.makedirs(dest, exist_ok=True)
        package = os.path.join(BUILT, "python", "npusim")
        compiled = [os.path.join(package, f) for f in os.listdir(package) if f.startswith("_npusim")]
        compiled += [os.path.join(BUILT, "app", "npusim"),
                     os.path.join(BUILT, "app", "libnpusim_video.so")]
        for path in compiled:
            shutil.copy2(path, dest)


class CompiledDistribution(Distribution):
    """A platform wheel: the package holds a compiled module."""

    def has_ext_modules(self):
        return True


setup(
    name="npusim",
    version=version(),
    description="Cycle-approximate NPU simulator (K210, DL processor, AIPP, KL730, FINN)",
    license="Apache-2.0",
    packages=["npusim"],
    package_dir={"npusim": "python/npusim"},
    python_requires=">=3.9",
    install_requires=["numpy"],
    entry_points={"pytest11": ["npusim = npusim.pytest_plugin"]},
    cmdclass={"build_py": BuildWithCMake},
    distclass=CompiledDistribution,
    zip_safe=False,
)
