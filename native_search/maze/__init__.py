"""Calculation-maze reference searches: the pruned trail DFS and the plain enumeration
(`search`). Imports nothing."""
