"""Run the plug-in's tests from its source folder too (installed, its package is importable)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
