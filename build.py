#!/usr/bin/env python3
"""Build the reading-list site: ``python build.py --help``."""

import sys

if __name__ == "__main__":
    try:
        from site_builder.cli import main
    except KeyboardInterrupt:  # Ctrl-C while the modules load: nothing was read or written yet
        print("interrupted before the build started; nothing written", file=sys.stderr)
        sys.exit(130)
    sys.exit(main())
