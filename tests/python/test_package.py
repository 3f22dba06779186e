import os
import subprocess
import sys
import time

import numpy as np

import portasolve

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from interrupts import interrupt_after  # noqa: E402


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


def test_objects_alive_at_exit_are_released_before_finalize():
    """An ensemble kept in a module global outlives the atexit finalize: its
    device memory must go before Kokkos does (a View freed after finalize
    aborts the process), and a call after finalize raises instead of crashing."""
    start = ("import portasolve\n"
             "ensemble = portasolve.lorenz05.Ensemble(model=1, members=3, spinup_steps=0, seed=1)\n"
             "ensemble.advance(2)\n")
    late_call = ("portasolve._portasolve.finalize()\n"
                 "try:\n"
                 "    ensemble.advance(1)\n"
                 "except RuntimeError as error:\n"
                 "    print('raised:', error)\n")
    for script in (start, start + late_call):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=os.environ.copy(),
                              timeout=60)
        assert done.returncode == 0, done.stderr
        assert "deallocated" not in done.stderr, done.stderr
    assert "raised:" in done.stdout and "finalized" in done.stdout, done.stdout


def test_import_alone_starts_nothing():
    done = subprocess.run([sys.executable, "-c", "import portasolve; "
                           "assert not portasolve._portasolve.kokkos_running()"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def interrupted_output(call, after):
    """Runs `call` (a long portasolve call) in a fresh interpreter, Ctrl-C one second in; if that raises
    KeyboardInterrupt the interpreter runs `after` (which must still work) and prints its value. Returns what
    was printed; the interrupt must act within 10 s."""
    script = ("import signal, numpy as np, portasolve\n"
              "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
              "image = np.random.default_rng(1).random((300, 300))\n"
              "rhs = np.zeros((200, 200)); ring = np.zeros_like(rhs); ring[0] = 1\n"
              "print('start', flush=True)\n"
              "try:\n"
              f"    {call}\n"
              "except KeyboardInterrupt:\n"
              f"    print('interrupted', {after}, flush=True)\n")
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)

    def wait():
        assert process.stdout.readline().strip() == "start"
        time.sleep(1.0)
    out, err, seconds = interrupt_after(process, wait)
    assert process.returncode == 0, err
    assert seconds < 10
    return out.strip()


def test_ctrl_c_interrupts_repeated_smoothing_passes():
    assert interrupted_output("portasolve.ndimage.uniform_filter(image, 3, passes=10**8)",
                              "portasolve.ndimage.uniform_filter(image, 3, passes=2).shape") == "interrupted (300, 300)"


def test_ctrl_c_interrupts_an_iterative_solve():
    assert interrupted_output(
        "portasolve.poisson.solve(rhs, ring, method='jacobi', tol=0, maxiter=10**8, check_every=50)",
        "portasolve.poisson.solve(rhs, ring)[1]['converged']") == "interrupted True"


def test_ctrl_c_interrupts_a_long_lomb_scargle_batch():
    # Run in blocks of series with a Ctrl-C check between them. Host builds: 1000 series x 4000 samples x
    # 20000 frequencies (8e10 pairs), tens of seconds on two cores; a GPU does that in a fraction of a second,
    # so GPU builds get 64 series x 10^5 samples x 2 10^5 frequencies by the direct sums (1.3e12 pairs, seconds).
    if portasolve._portasolve.takes_gpu_arrays:
        call = ("portasolve.timeseries.LombScargle(np.linspace(0, 100, 100000), np.random.default_rng(2).random("
                "(64, 100000))).power(np.linspace(0.01, 5, 200000), method='direct')")
    else:
        call = ("portasolve.timeseries.LombScargle(np.linspace(0, 100, 4000), "
                "np.random.default_rng(2).random((1000, 4000))).power(np.linspace(0.01, 5, 20000))")
    after = "portasolve.timeseries.LombScargle(np.arange(9.0), np.sin(np.arange(9.0))).power([0.1, 0.2]).shape"
    assert interrupted_output(call, after) == "interrupted (2,)"


def resident_kib():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def test_ten_thousand_small_calls_keep_memory_and_reference_counts():
    """Every workload's entry points called 10^4 times on tiny inputs: resident
    memory stays within 1 MiB after a warm-up, and the inputs' reference counts
    are what they were (a binding that kept or dropped a reference would move
    them), and the last results equal the first."""
    x = np.arange(8.0)
    y = np.sin(x)
    freqs = np.array([0.5, 1.0])
    img = np.random.default_rng(1).random((12, 12))
    rhs = np.zeros((6, 6))
    ensemble = portasolve.lorenz05.Ensemble(model=1, members=2, spinup_steps=0, seed=3)
    periodogram = portasolve.timeseries.LombScargle(x, y)
    inputs = (x, y, freqs, img, rhs)

    def calls(n):
        for _ in range(n):
            a = portasolve.signal.lombscargle(x, y, freqs)
            b = periodogram.power(freqs)
            c = portasolve.ndimage.uniform_filter(img, 3)
            d = portasolve.ndimage.gaussian_filter(img, 1.0)
            e = portasolve.poisson.solve(rhs, 1.0)[0]
            f = ensemble.advance(1).state
        return a, b, c, d, e, f

    first = calls(200)
    refs = [sys.getrefcount(a) for a in inputs]
    before = resident_kib()
    last = calls(10000)
    assert resident_kib() - before < 1024
    assert [sys.getrefcount(a) for a in inputs] == refs
    for got, want in zip(last[:5], first[:5]):
        np.testing.assert_array_equal(got, want)
    assert ensemble.steps == 10200 and np.all(np.isfinite(last[5]))
