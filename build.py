#!/usr/bin/env python3
"""Build the reading-list site: ``python build.py --help``."""

import sys

from site_builder.cli import main

if __name__ == "__main__":
    sys.exit(main())
