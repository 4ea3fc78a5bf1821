"""The PyInstaller bundle's entry script: the same entry point as the ``grpo-desktop`` script."""

import sys

from grpo_desktop.app import main

if __name__ == "__main__":
    sys.exit(main())
