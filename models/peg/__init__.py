"""Peg solitaire formulations: the time-indexed planning model (`time_indexed`) and its CP-SAT
(`cpsat`) and CNF (`sat`) backends, the redundant-constraint variants `resource`, `merson` and
`ordered`, and cube-and-conquer jobs for "moves <= K" decisions (`cubes`). Imports nothing."""
