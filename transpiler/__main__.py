"""`python -m transpiler`: see `transpiler.cli`."""

import os
import sys

try:
    # Inside the `try`: a Ctrl-C while the modules load is an interruption, not a traceback.
    from transpiler.cli import main

    status = main()
except KeyboardInterrupt:
    print("\ninterrupted", file=sys.stderr)
    status = 130
except BrokenPipeError:
    # The reader of stdout went away (`... --diff | head`): stop quietly, as Unix tools do.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    status = 1
sys.exit(status)
