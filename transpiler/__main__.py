"""`python -m transpiler`: see `transpiler.cli`."""

import os
import sys

from transpiler.cli import main

try:
    sys.exit(main())
except BrokenPipeError:
    # The reader of stdout went away (`... --diff | head`): stop quietly, as Unix tools do.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(1)
