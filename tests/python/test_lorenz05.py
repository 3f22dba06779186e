"""portasolve.lorenz05.Ensemble against a NumPy float64 RK4 of the models' equations (Lorenz 2005, as the
solver's parameters.hpp writes them), the models' fixed point and NumPy's statistics."""
import numpy as np
import pytest

from portasolve import lorenz05


def average(x, k):
    """W_n = sum'_{j=-J..J} x_{n-j} / K: even K halves the end terms (J = K/2), odd K sums plainly."""
    j_max = k // 2
    total = np.zeros_like(x)
    for j in range(-j_max, j_max + 1):
        weight = 0.5 if k % 2 == 0 and abs(j) == j_max else 1.0
        total += weight * np.roll(x, j, axis=-1)
    return total / k


def bracket(x, y, k):
    """[X, Y]_{K,n} = -W_{n-2K} V_{n-K} + sum'_j W_{n-K+j} Y_{n+K+j} / K."""
    w, v = average(x, k), average(y, k)
    j_max = k // 2
    total = -np.roll(w, 2 * k, axis=-1) * np.roll(v, k, axis=-1)
    inner = np.zeros_like(x)
    for j in range(-j_max, j_max + 1):
        weight = 0.5 if k % 2 == 0 and abs(j) == j_max else 1.0
        inner += weight * np.roll(w, k - j, axis=-1) * np.roll(y, -(k + j), axis=-1)
    return total + inner / k


def rk4(state, steps, dt, forcing, k):
    """Model II (model I: K = 1) in float64."""
    def rate(x):
        return bracket(x, x, k) - x + forcing
    x = state.astype(np.float64)
    for _ in range(steps):
        k1 = rate(x)
        k2 = rate(x + 0.5 * dt * k1)
        k3 = rate(x + 0.5 * dt * k2)
        k4 = rate(x + dt * k3)
        x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return x


@pytest.mark.parametrize("model, k, n", [(1, 1, 40), (2, 4, 60), (2, 3, 45)])
def test_models_one_and_two_match_numpy_rk4(rng, model, k, n):
    forcing, dt, steps = 8.0, 0.01, 25
    start = forcing + rng.standard_normal((3, n))
    ens = lorenz05.Ensemble(model=model, state=start, model_size=n, forcing=forcing, delta_t=dt, K=k)
    ens.advance(steps)
    assert ens.steps == steps and ens.time == pytest.approx(steps * dt)
    np.testing.assert_allclose(ens.state, rk4(start, steps, dt, forcing, 1 if model == 1 else k), rtol=1e-11,
                               atol=1e-11)
    single = lorenz05.Ensemble(model=model, state=start, model_size=n, forcing=forcing, delta_t=dt, K=k,
                               dtype=np.float32).advance(steps)
    assert single.state.dtype == np.float32
    np.testing.assert_allclose(single.state, ens.state, atol=2e-3)


@pytest.mark.parametrize("model", [1, 2, 3])
def test_the_forcing_everywhere_is_a_fixed_point(model):
    p = lorenz05.defaults(model)
    state = np.full((2, p["model_size"]), p["forcing"])
    ens = lorenz05.Ensemble(model=model, state=state).advance(50)
    np.testing.assert_allclose(ens.state, state, rtol=1e-12)


def test_model_three_statistics_are_numpys_and_starts_repeat(rng):
    ens = lorenz05.Ensemble(model=3, members=5, seed=4, spinup_steps=20)
    again = lorenz05.Ensemble(model=3, members=5, seed=4, spinup_steps=20)
    np.testing.assert_array_equal(ens.state, again.state)
    ens.advance(30)
    state = ens.state
    assert state.shape == (5, 960) and np.all(np.isfinite(state))
    assert not np.allclose(state, again.state)  # it moved
    mean, spread = ens.statistics()
    np.testing.assert_allclose(mean, state.mean(axis=0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(spread, state.std(axis=0, ddof=1), rtol=1e-10, atol=1e-12)
    assert ens.layout in lorenz05.LAYOUTS and ens.layout != "automatic"


def test_errors():
    with pytest.raises(ValueError, match="model must be"):
        lorenz05.defaults(4)
    with pytest.raises(TypeError, match="unknown parameters"):
        lorenz05.Ensemble(model=1, forcings=8)
    with pytest.raises(ValueError, match="columns, model_size is 40"):
        lorenz05.Ensemble(model=1, state=np.zeros((2, 41)))
    with pytest.raises(ValueError, match="K"):
        lorenz05.Ensemble(model=2, K=0, members=2, spinup_steps=0)
    with pytest.raises(ValueError, match="layout"):
        lorenz05.Ensemble(model=1, layout="diagonal")
    with pytest.raises(ValueError, match="non-finite"):
        lorenz05.Ensemble(model=1, state=np.full((1, 40), np.nan))
    with pytest.raises(ValueError, match="steps"):
        lorenz05.Ensemble(model=1, members=1, spinup_steps=0).advance(-1)
