"""``python -m pyfn``."""

import sys

from pyfn.cli import main

sys.exit(main())
