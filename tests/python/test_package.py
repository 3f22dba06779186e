import os
import subprocess
import sys

import portasolve


def test_info_names_backend_device_and_versions():
    info = portasolve.info()
    for key in ("portasolve", "kokkos", "execution_space", "memory_space", "device", "backends", "concurrency"):
        assert key in info
    assert info["portasolve"] == portasolve.__version__
    assert info["kokkos"].count(".") == 2
    assert info["concurrency"] >= 1
    text = repr(info)
    assert "kokkos:" in text and info["device"] in text


def test_kokkos_starts_on_first_use_and_finalizes_at_exit():
    script = ("import portasolve, numpy as np\n"
              "assert not portasolve._portasolve.kokkos_running()\n"
              "portasolve.signal.lombscargle(np.arange(5.0), np.arange(5.0) ** 2, [1.0, 2.0])\n"
              "assert portasolve._portasolve.kokkos_running()\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=os.environ.copy(),
                          timeout=60)
    assert done.returncode == 0, done.stderr
    # Kokkos complains on stderr about Views alive at finalize or a missing finalize.
    assert "finalize" not in done.stderr.lower(), done.stderr


def test_import_alone_starts_nothing():
    done = subprocess.run([sys.executable, "-c", "import portasolve; "
                           "assert not portasolve._portasolve.kokkos_running()"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
