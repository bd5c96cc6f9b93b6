#!/usr/bin/env python3
"""Build the reading-list site: ``python build.py --help``."""

import gc
import sys

if __name__ == "__main__":
    gc.disable()  # a build runs without the cyclic collector (see site_builder.cli.run; serve turns it on again)
    try:
        from site_builder.cli import run
    except KeyboardInterrupt:  # Ctrl-C while the modules load: nothing was read or written yet
        print("interrupted before the build started; nothing written", file=sys.stderr)
        sys.exit(130)
    run()
