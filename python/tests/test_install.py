"""`pip install .` as docs/python.md gives it, into a folder of its own: the package, its compiled
module, the npusim program and the pytest plugin's entry point land together and work from there.
The compiled files come from this build (NPUSIM_PREBUILT), so the test does not build again."""

import os
import shutil
import subprocess
import sys

import npusim
from conftest import ROOT


def test_pip_install_puts_a_working_package_in_place(tmp_path, digits):
    src = tmp_path / "src"
    for name in ("setup.py", "pyproject.toml", "CMakeLists.txt"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(os.path.join(ROOT, name), src / name)
    shutil.copytree(os.path.join(ROOT, "python", "npusim"), src / "python" / "npusim")
    build = os.path.dirname(os.path.dirname(os.path.dirname(npusim.__file__)))
    site = tmp_path / "site"
    env = dict(os.environ, NPUSIM_PREBUILT=build)
    env.pop("NPUSIM_CLI", None)
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation",
                           "--no-deps", "--no-index", "--target", str(site), str(src)],
                          capture_output=True, text=True, env=env, check=False, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    installed = site / "npusim"
    assert (installed / "npusim").is_file() and (installed / "libnpusim_video.so").is_file()
    entry = list(site.glob("npusim-*.dist-info/entry_points.txt"))
    assert entry and "npusim = npusim.pytest_plugin" in entry[0].read_text()
    code = ("import numpy as np, npusim, sys\n"
            "print(npusim.__version__, npusim.__file__)\n"
            "from npusim._platform import cli_path\n"
            "print(cli_path())\n"
            "x = np.load(sys.argv[1] + '/input.npy')\n"
            "r = npusim.Platform().run(sys.argv[1] + '/digits.kmodel', x)\n"
            "f = npusim.Platform().run(sys.argv[1] + '/digits.kmodel', x, timed=False)\n"
            "print((r.outputs[0] == f.outputs[0]).all(), r.totals['kpu_cycles'])\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NPUSIM_CLI")}
    env["PYTHONPATH"] = str(site)
    done = subprocess.run([sys.executable, "-c", code, str(digits)], capture_output=True,
                          text=True, env=env, cwd=tmp_path, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    first, cli, same = done.stdout.splitlines()
    version, where = first.split()
    assert version == npusim.__version__
    assert where.startswith(str(installed))
    assert cli == str(installed / "npusim")  # the program installed beside it
    assert same.split()[0] == "True" and float(same.split()[1]) > 0
