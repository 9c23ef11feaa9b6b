"""`python -m puzzlesat ...` runs the command line."""
from .cli import main

main()
