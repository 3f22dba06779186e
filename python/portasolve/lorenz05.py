"""Lorenz (2005) models I-III ("Designing chaotic models", J. Atmos. Sci. 62),
ensembles of members advanced together by RK4 on the device, with NCAR DART's
parameter names (model_size, forcing, delta_t, space_time_scale, coupling, K,
smooth_steps).

    ens = portasolve.lorenz05.Ensemble(model=3, members=40, seed=1)
    ens.advance(1000)
    mean, spread = ens.statistics()
"""
import numpy as np

from . import _portasolve
from ._arrays import float_array, suffix

__all__ = ["Ensemble", "defaults", "LAYOUTS"]

LAYOUTS = tuple(_portasolve.lorenz05_layouts)
PARAMETERS = ("model_size", "forcing", "delta_t", "space_time_scale", "coupling", "K", "smooth_steps")


def defaults(model=3):
    """The parameters a model starts from (dict): DART's model III (coupling 2.5,
    the paper's), Lorenz 96 (N = 40, F = 8, dt = 0.05) for model 1; model 2
    takes model III's N, F, dt and K."""
    if model not in (1, 2, 3):
        raise ValueError(f"model must be 1, 2 or 3, got {model!r}")
    return dict(_portasolve.lorenz05_defaults(model))


class Ensemble:
    """E members of one model on the device.

    Parameters not given take defaults(model). The start: `state` (E x N)
    when given; else, as the command line's experiment does, the base state
    F everywhere and 1.001 F at the first point, advanced `spinup_steps`
    steps, plus Gaussian perturbations of standard deviation `perturbation`
    per member and point (NumPy's generator seeded by `seed`). dtype:
    float64 or float32 (the precision of the state and the steps). layout:
    one of LAYOUTS ("automatic" picks the fastest the backend runs).
    """

    def __init__(self, model=3, members=20, *, state=None, perturbation=1e-3, spinup_steps=1000, seed=None,
                 dtype=np.float64, layout="automatic", **parameters):
        unknown = sorted(set(parameters) - set(PARAMETERS))
        if unknown:
            raise TypeError(f"unknown parameters {unknown} (the model takes {', '.join(PARAMETERS)})")
        if layout not in LAYOUTS:
            raise ValueError(f"layout {layout!r} is not one of {', '.join(LAYOUTS)}")
        if np.dtype(dtype) not in (np.float32, np.float64):
            raise TypeError(f"dtype must be float32 or float64, got {np.dtype(dtype)}")
        values = defaults(model)
        values.update(parameters)
        kind = getattr(_portasolve, "Lorenz05Ensemble_" + suffix(dtype))
        n = int(values["model_size"])
        if state is None:
            if members < 1:
                raise ValueError(f"members must be >= 1, got {members}")
            if spinup_steps < 0:
                raise ValueError(f"spinup_steps must be >= 0, got {spinup_steps}")
            base = np.full((1, n), values["forcing"], dtype=dtype)
            base[0, 0] = 1.001 * values["forcing"]
            spin = kind(values, layout, base)
            spin.advance(int(spinup_steps))
            base = spin.state().astype(np.float64)
            if not np.all(np.isfinite(base)):
                raise ValueError("the spin-up diverged (non-finite state); reduce delta_t")
            noise = np.random.default_rng(seed).normal(0.0, perturbation, (members, n))
            state = base + noise
        state = float_array(state, "state", 2, dtype=dtype)
        if not np.all(np.isfinite(state)):
            raise ValueError("state holds non-finite values")
        self._ensemble = kind(values, layout, state)

    def advance(self, steps):
        """Advances every member by `steps` RK4 steps (Ctrl-C interrupts between
        batches of steps, leaving a consistent state); returns self."""
        self._ensemble.advance(int(steps))
        return self

    @property
    def state(self):
        """The members' states, E x N (a copy on the host)."""
        return self._ensemble.state()

    def statistics(self):
        """(mean, spread) per point over the members, summed in double; spread
        is the sample standard deviation (0 for one member)."""
        return self._ensemble.statistics()

    @property
    def steps(self):
        """Steps taken since the start (spin-up not counted)."""
        return self._ensemble.steps

    @property
    def layout(self):
        return self._ensemble.layout

    @property
    def parameters(self):
        return dict(self._ensemble.parameters)

    @property
    def time(self):
        """Model time since the start: steps x delta_t."""
        return self.steps * self.parameters["delta_t"]
