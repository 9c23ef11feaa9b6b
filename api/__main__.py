"""`python -m puzzlesat ...` runs the command line."""
from puzzlesat.compare.cli import main

main()
