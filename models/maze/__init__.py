"""Calculation-maze formulations (CP-SAT): the time-indexed trail (`time_indexed`), the segments
between multiplications (`segments`) and what they share (`common`). Imports nothing."""
