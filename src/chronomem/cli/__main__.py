"""``python -m chronomem.cli``: the same as the ``chronomem`` command."""

import sys

from chronomem.cli import main

sys.exit(main())
