"""Sliding-tile formulations: time-indexed planning as data (`time_indexed`) and its CP-SAT
(`cpsat`) and CNF (`sat`) backends. Imports nothing."""
