"""Engine registry, cross-validation, reports and the `puzzlesat` CLI."""
