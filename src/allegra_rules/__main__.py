"""``python -m allegra_rules``: the ``allegra-rules`` command line (``allegra_rules.cli``)."""

import sys

from allegra_rules.cli import main

if __name__ == "__main__":
    sys.exit(main())
