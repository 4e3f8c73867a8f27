"""Private helpers of scripts/benchmark_matrix.py (one module per matrix)."""
