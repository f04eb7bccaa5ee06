"""The README's Python example runs as written (in a folder where `npusim run --out out` ran)."""

import os
import re
import subprocess
import sys

from conftest import ROOT, cli


def test_the_readme_example_runs(tmp_path):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    section = readme[readme.index("## From Python"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    rc, _, err = cli("run", "--out", "out", cwd=tmp_path)
    assert rc == 0, err
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0].split()
    assert first[0] == "2"  # held-out digit 0 is a 2 (the default job's table says so)
    assert float(first[1]) > 0
