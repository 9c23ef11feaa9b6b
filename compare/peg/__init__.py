"""Peg tools on the campaign executors: layer expansions split into chunk jobs (`layers`),
cube-and-conquer decisions (`cubes`) and the single-vacancy problems as campaign jobs
(`problems`). Imports nothing."""
