"""Interrupting a child process in the tests (tests/drivers/test_cli.py, tests/python/test_package.py)."""

import signal
import time


def interrupt_after(process, wait, signal_number=signal.SIGINT, timeout=60):
    """Calls `wait()`, then sends `signal_number` to `process` (a subprocess.Popen with pipes) and collects its
    output. Whatever happens, the process is killed and reaped at the end: an interrupt that did not act must
    not leave it running. Returns (stdout, stderr, seconds from the signal to the end)."""
    try:
        wait()
        sent = time.monotonic()
        process.send_signal(signal_number)
        out, err = process.communicate(timeout=timeout)
        return out, err, time.monotonic() - sent
    finally:
        process.kill()
        process.wait()
