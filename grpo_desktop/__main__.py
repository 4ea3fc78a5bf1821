"""``python -m grpo_desktop`` runs the same entry point as ``grpo-desktop``."""

from grpo_desktop.app import main

raise SystemExit(main())
