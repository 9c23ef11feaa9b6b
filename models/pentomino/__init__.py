"""Polyform tiling formulations: the exact cover as data (`cover`) and its CP-SAT (`cpsat`) and
CNF (`sat`) backends. Imports nothing."""
