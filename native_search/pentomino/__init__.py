"""Polyform tiling reference search: depth-first over bitboards (`dfs`). Imports nothing."""
