"""Peg solitaire reference searches: iterative deepening (`iddfs`, engines native:iddfs and
native:auto), layered breadth-first search (`bfs`) with its move bounds (`bound`), layers in memory
or on disk (`disk`) and chunk jobs (`chunks`); the single-vacancy problems (`problems`, `table`) and
a beam for upper bounds (`beam`); the bitboard engines' board limit (`bitboard`). Imports nothing."""
