"""`python -m transpiler`: see `transpiler.cli`."""

import sys

from transpiler.cli import main

sys.exit(main())
