"""``python -m chronomem.ui``: the same as ``chronomem ui``."""

from chronomem.ui import main

raise SystemExit(main(prog="python -m chronomem.ui"))
