"""The shared vendor kmodels through the package (skipped without ../shared)."""

import numpy as np

from conftest import cli, shared


def test_a_vendor_kmodel_on_a_photo(platform, tmp_path):
    model = shared("k210", "face_detect_v3.kmodel")
    photo = shared("k210", "astronaut.png")
    r = platform.run(model, photo, timed=False)
    rc, _, err = cli("run", "--functional", "--model", model, "--input", photo, "--out",
                     str(tmp_path / "f"))
    assert rc == 0, err
    assert r.outputs[0].tobytes() == np.load(tmp_path / "f" / "output_0.npy").tobytes()
