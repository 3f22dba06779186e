import numpy as np
import pytest

from portasolve import poisson


def laplacian(u):
    """The 5-point Laplacian on u's interior (ring zero)."""
    out = np.zeros_like(u)
    out[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
    return out


def periodic_laplacian(u):
    return np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1) - 4 * u


@pytest.mark.parametrize("method, atol", [("auto", 1e-10), ("spectral", 1e-10), ("multigrid", 1e-7),
                                          ("cg", 1e-7), ("cg_fused", 1e-7)])
def test_manufactured_solution(rng, method, atol):
    u = rng.uniform(-1.0, 1.0, (33, 47))
    x, report = poisson.solve(laplacian(u), u, method=method, maxiter=2000)
    assert x.dtype == np.float64 and x.shape == u.shape
    np.testing.assert_allclose(x, u, rtol=0, atol=atol)
    assert report["converged"] or report["stop_reason"] == "direct"
    assert report["relative_residual"] <= 1e-10
    assert report["method"] != "auto" and report["boundary"] == "dirichlet"
    assert report["history"][-1][0] == report["iterations"]


def test_jacobi_small_grid(rng):
    u = rng.uniform(-1.0, 1.0, (12, 15))
    x, report = poisson.solve(laplacian(u), u, method="jacobi", tol=1e-10, maxiter=20000, check_every=50)
    assert report["converged"] and report["method"] == "jacobi"
    np.testing.assert_allclose(x, u, atol=1e-8)


def test_float32(rng):
    u = rng.uniform(-1.0, 1.0, (40, 30)).astype(np.float32)
    x, report = poisson.solve(laplacian(u), u)
    assert x.dtype == np.float32
    np.testing.assert_allclose(x, u, atol=2e-4)


def test_constant_boundary_and_start(rng):
    u = np.full((20, 20), 3.0)
    u[1:-1, 1:-1] = rng.uniform(size=(18, 18))
    x, report = poisson.solve(laplacian(u), 3.0, method="cg", x0=np.ones((20, 20)))
    np.testing.assert_allclose(x, u, atol=1e-7)
    x2, _ = poisson.reconstruct_from_laplacian(laplacian(u), u)
    np.testing.assert_allclose(x2, u, atol=1e-10)


def test_periodic(rng):
    u = rng.uniform(-1.0, 1.0, (32, 24))
    x, report = poisson.solve(periodic_laplacian(u), "periodic")
    assert report["boundary"] == "periodic"
    np.testing.assert_allclose(x, u - u.mean(), atol=1e-10)


def test_periodic_and_neumann_by_multigrid(rng):
    u = rng.uniform(-1.0, 1.0, (33, 24))  # odd rows: the periodic wrap's seam colour
    x, report = poisson.solve(periodic_laplacian(u), "periodic", method="multigrid", tol=1e-12, maxiter=60)
    assert report["method"] == "multigrid" and report["converged"]
    np.testing.assert_allclose(x, u - u.mean(), atol=1e-9)
    spectral, _ = poisson.solve(periodic_laplacian(u), "periodic", method="spectral")
    np.testing.assert_allclose(x, spectral, atol=1e-9)
    p = np.pad(u, 1, mode="reflect")  # the mirror: row -1 is row 1
    mirrored = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u
    w = np.outer(np.r_[0.5, np.ones(u.shape[0] - 2), 0.5], np.r_[0.5, np.ones(u.shape[1] - 2), 0.5])
    x, report = poisson.solve(mirrored, "neumann", method="multigrid", tol=1e-12, maxiter=60)
    assert report["method"] == "multigrid" and report["converged"]
    np.testing.assert_allclose(x, u - (w * u).sum() / w.sum(), atol=1e-9)


def test_maxiter_stops_without_converging(rng):
    u = rng.uniform(size=(30, 30))
    x, report = poisson.solve(laplacian(u), u, method="jacobi", maxiter=5, check_every=5)
    assert not report["converged"] and report["stop_reason"] == "max_iterations" and report["iterations"] == 5


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(rhs=np.zeros((2, 5))), ValueError, "3 x 3"),
    (dict(rhs=np.zeros(5)), ValueError, "2-D"),
    (dict(rhs=np.zeros((5, 5)), boundary=np.zeros((4, 5))), ValueError, "shape"),
    (dict(rhs=np.zeros((5, 5)), method="sor"), ValueError, "method"),
    (dict(rhs=np.zeros((5, 5)), boundary="robin"), ValueError, "neumann"),
    (dict(rhs=np.full((5, 5), np.nan)), ValueError, "non-finite"),
    (dict(rhs=np.zeros((5, 5)), tol=-1.0), ValueError, "tol"),
    (dict(rhs=np.zeros((5, 5)), maxiter=0), ValueError, "maxiter"),
    (dict(rhs=np.zeros((5, 5), complex)), TypeError, "rhs"),
])
def test_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        poisson.solve(**kwargs)
