"""The portasolve package from the build tree: ctest sets PYTHONPATH to
<build>/python (tests/python/CMakeLists.txt); run by hand with
  PYTHONPATH=build/openmp/python python3 -m pytest tests/python"""
import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(20261125)
