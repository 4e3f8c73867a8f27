"""``python -m chronomem.server``: the MCP server on stdio (the seed's Cursor configuration)."""

import sys

from chronomem.server import main

sys.exit(main())
