"""``python -m crossenvs.cli``: the ``crossenvs`` command."""

import sys

from . import main

sys.exit(main())
