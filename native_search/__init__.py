"""Reference searches. Never imports models/ or a solver library; hot loops are numba kernels."""
